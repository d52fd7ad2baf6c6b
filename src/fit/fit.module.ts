import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module.js';
import { EventsModule } from '../events/events.module.js';
import { ExperimentsModule } from '../experiments/experiments.module.js';
import { LearningModule } from '../learning/learning.module.js';
import { StoresModule } from '../stores/stores.module.js';
import { FIT_ENTITIES } from './fit.entities.js';
import { ProductFitController } from './product-fit.controller.js';
import { ProductFitService } from './product-fit.service.js';
import { QuestionnairesController } from './questionnaires.controller.js';
import { QuestionnairesRepository } from './questionnaires.repository.js';
import { QuestionnairesService } from './questionnaires.service.js';
import { SessionReferences } from './session-references.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';
import { ShopperRequests } from './shopper-requests.js';
import { ShoppersController } from './shoppers.controller.js';
import { ShopperKeys } from './shopper-keys.js';
import { ShoppersRepository } from './shoppers.repository.js';

/**
 * Questionnaires, fit sessions and how products fit; reads the catalog, records its events through the events module and
 * reads what the learning module learned from outcomes.
 */
@Module({
  imports: [TypeOrmModule.forFeature(FIT_ENTITIES), CatalogModule, EventsModule, LearningModule, StoresModule, ExperimentsModule],
  controllers: [QuestionnairesController, SessionsController, ProductFitController, ShoppersController],
  providers: [
    QuestionnairesService,
    SessionsService,
    ProductFitService,
    QuestionnairesRepository,
    SessionsRepository,
    ShoppersRepository,
    ShopperRequests,
    SessionReferences,
    ShopperKeys,
  ],
  exports: [ProductFitService, SessionsService],
})
export class FitModule {}
