import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EvidenceRepository } from './evidence.repository.js';
import { LEARNING_ENTITIES } from './learning.entities.js';
import { LearningService } from './learning.service.js';
import { LineLessonsRepository } from './line-lessons.repository.js';

/**
 * Learning how products fit from outcomes: the evidence tables (`fit_evidence`, `fit_evidence_types`,
 * `shopper_evidence`, `line_lessons`) and the rules that turn outcomes into evidence, behind one service that ingestion
 * and the fit flow call.
 */
@Module({
  imports: [TypeOrmModule.forFeature(LEARNING_ENTITIES)],
  providers: [LearningService, EvidenceRepository, LineLessonsRepository],
  exports: [LearningService],
})
export class LearningModule {}
