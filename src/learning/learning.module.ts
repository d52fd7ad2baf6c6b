import { Module } from '@nestjs/common';
import { EvidenceRepository } from './evidence.repository.js';
import { LearningService } from './learning.service.js';
import { LineLessonsRepository } from './line-lessons.repository.js';

/**
 * Learning how products fit from outcomes: the evidence tables (`fit_evidence`, `fit_evidence_types`,
 * `shopper_evidence`, `line_lessons`) and the rules that turn outcomes into evidence, behind one service that ingestion
 * and the fit flow call.
 */
@Module({
  providers: [LearningService, EvidenceRepository, LineLessonsRepository],
  exports: [LearningService],
})
export class LearningModule {}
