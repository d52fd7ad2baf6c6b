import { Module } from '@nestjs/common';
import { QuestionnairesController } from './questionnaires.controller.js';
import { QuestionnairesService } from './questionnaires.service.js';
import { SessionsController } from './sessions.controller.js';
import { SessionsService } from './sessions.service.js';

@Module({
  controllers: [QuestionnairesController, SessionsController],
  providers: [QuestionnairesService, SessionsService],
})
export class FitModule {}
