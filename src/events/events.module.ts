import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { EventReferences } from './event-references.js';
import { EventsController } from './events.controller.js';
import { EventsRepository } from './events.repository.js';
import { EventsService } from './events.service.js';
import { FitEvidenceRepository } from './fit-evidence.repository.js';
import { LineLessonsRepository } from './line-lessons.repository.js';
import { LineSummariesRepository } from './line-summaries.repository.js';
import { OutcomeLessonsService } from './outcome-lessons.service.js';
import { SessionEventsService } from './session-events.service.js';

/**
 * Storefront and order events; exports the service through which the fit flow records its own, and the evidence
 * outcomes gave about each product's fit, which the fit flow learns from.
 */
@Module({
  imports: [CatalogModule],
  controllers: [EventsController],
  providers: [
    EventsService,
    SessionEventsService,
    EventReferences,
    EventsRepository,
    LineSummariesRepository,
    LineLessonsRepository,
    OutcomeLessonsService,
    FitEvidenceRepository,
  ],
  exports: [SessionEventsService, FitEvidenceRepository],
})
export class EventsModule {}
