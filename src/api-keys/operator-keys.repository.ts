import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { OperatorKey } from './api-key.entity.js';

/** The queries of the operator bootstrap keys the service created itself (only their digests are stored). */
@Injectable()
export class OperatorKeysRepository {
  constructor(@InjectRepository(OperatorKey) private readonly keys: Repository<OperatorKey>) {}

  /** The first key created, or null when there is none. */
  findFirst(): Promise<OperatorKey | null> {
    return this.keys.findOne({ where: {}, order: { createdAt: 'ASC' } });
  }

  async insert(key: { readonly id: string; readonly secretDigest: string }): Promise<void> {
    await this.keys.insert({ id: key.id, secretDigest: key.secretDigest });
  }
}
