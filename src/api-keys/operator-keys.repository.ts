import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { OperatorKey } from './api-key.entity.js';

/** The queries of the operator bootstrap keys the service created itself (only their digests are stored). */
@Injectable()
export class OperatorKeysRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The first key created, or null when there is none. */
  findFirst(): Promise<OperatorKey | null> {
    return this.dataSource.getRepository(OperatorKey).findOne({ where: {}, order: { createdAt: 'ASC' } });
  }

  async insert(key: { readonly id: string; readonly secretDigest: string }): Promise<void> {
    await this.dataSource.getRepository(OperatorKey).insert({ id: key.id, secretDigest: key.secretDigest });
  }
}
