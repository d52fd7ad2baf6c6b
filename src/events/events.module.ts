import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module.js';
import { LearningModule } from '../learning/learning.module.js';
import { EVENTS_ENTITIES } from './events.entities.js';
import { EventReferences } from './event-references.js';
import { EventsController } from './events.controller.js';
import { EventsRepository } from './events.repository.js';
import { EventsService } from './events.service.js';
import { LineSummariesRepository } from './line-summaries.repository.js';
import { SessionEventsService } from './session-events.service.js';

/**
 * Storefront and order events; exports the service through which the fit flow records its own. What outcomes teach
 * is handed to the learning module in the ingestion transaction.
 */
@Module({
  imports: [TypeOrmModule.forFeature(EVENTS_ENTITIES), CatalogModule, LearningModule],
  controllers: [EventsController],
  providers: [EventsService, SessionEventsService, EventReferences, EventsRepository, LineSummariesRepository],
  exports: [SessionEventsService, EventsService],
})
export class EventsModule {}
