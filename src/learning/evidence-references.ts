import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CatalogReferences } from '../catalog/catalog-references.js';
import { EvidenceRepository } from './evidence.repository.js';

/**
 * A product's sums keep it: a delete archives a product that has any. Events name every product their outcomes
 * taught about, but an import of past orders names none, and its sums would otherwise block the delete.
 */
@Injectable()
export class EvidenceReferences implements OnModuleInit {
  constructor(
    private readonly references: CatalogReferences,
    private readonly evidence: EvidenceRepository,
  ) {}

  onModuleInit(): void {
    this.references.register('product', (manager, id) => this.evidence.namesProduct(manager, id));
  }
}
