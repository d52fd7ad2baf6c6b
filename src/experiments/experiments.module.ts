import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LearningModule } from '../learning/learning.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { EXPERIMENTS_ENTITIES } from './experiment.entity.js';
import { ExperimentsController } from './experiments.controller.js';
import { ExperimentsRepository } from './experiments.repository.js';
import { ExperimentsService } from './experiments.service.js';
import { ResultsRepository } from './results.repository.js';
import { ResultsService } from './results.service.js';

/**
 * Randomized experiments: what size help changes, per arm, by intention to treat. Shoppers are digested with the
 * store's key that learning lends (`ShopperDigests`), so a unit is the shopper her sessions and purchases name.
 */
@Module({
  imports: [TypeOrmModule.forFeature(EXPERIMENTS_ENTITIES), StoresModule, LearningModule],
  controllers: [ExperimentsController],
  providers: [ExperimentsService, ExperimentsRepository, ResultsService, ResultsRepository],
  exports: [ExperimentsService, ResultsService],
})
export class ExperimentsModule {}
