import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module.js';
import { EvidenceReferences } from './evidence-references.js';
import { EvidenceRepository } from './evidence.repository.js';
import { LEARNING_ENTITIES } from './learning.entities.js';
import { AnswerLinksRepository } from './answer-links.repository.js';
import { VerdictsRepository } from './verdicts.repository.js';
import { LearningService } from './learning.service.js';
import { LineLessonsRepository } from './line-lessons.repository.js';
import { OrderHistoryController } from './order-history.controller.js';
import { OrderHistoryRepository } from './order-history.repository.js';
import { OrderHistoryService } from './order-history.service.js';
import { ShopperDigests } from './shopper-digests.js';

/**
 * Learning how products fit from outcomes: the evidence tables (`fit_evidence`, `fit_evidence_types`,
 * `shopper_evidence`, `line_lessons`) and the rules that turn outcomes into evidence, behind one service that ingestion
 * and the fit flow call; and the import of a store's past orders (`POST …/order-history`), which teaches the same
 * lessons. Products with sums are kept by the catalog (archived, not deleted); shoppers are digested with the key fit
 * lends (`ShopperDigests`).
 */
@Module({
  imports: [TypeOrmModule.forFeature(LEARNING_ENTITIES), CatalogModule],
  controllers: [OrderHistoryController],
  providers: [
    LearningService,
    EvidenceRepository,
    LineLessonsRepository,
    AnswerLinksRepository,
    VerdictsRepository,
    OrderHistoryService,
    OrderHistoryRepository,
    ShopperDigests,
    EvidenceReferences,
  ],
  exports: [LearningService, ShopperDigests],
})
export class LearningModule {}
