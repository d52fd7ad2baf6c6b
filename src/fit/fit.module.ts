import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module.js';
import { EventsModule } from '../events/events.module.js';
import { QuestionnairesController } from './questionnaires.controller.js';
import { QuestionnairesRepository } from './questionnaires.repository.js';
import { QuestionnairesService } from './questionnaires.service.js';
import { SessionReferences } from './session-references.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

/** Questionnaires and fit sessions; reads the catalog, records its events through the events module. */
@Module({
  imports: [CatalogModule, EventsModule],
  controllers: [QuestionnairesController, SessionsController],
  providers: [QuestionnairesService, SessionsService, QuestionnairesRepository, SessionsRepository, SessionReferences],
})
export class FitModule {}
