import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { STORES_ENTITIES } from './store.entity.js';
import { StoresController } from './stores.controller.js';
import { StoresRepository } from './stores.repository.js';
import { StoresService } from './stores.service.js';

@Module({
  imports: [TypeOrmModule.forFeature(STORES_ENTITIES)],
  controllers: [StoresController],
  providers: [StoresService, StoresRepository],
  // For the access guard (a route's store), new keys (the store they are bound to) and the platform connection.
  exports: [StoresService],
})
export class StoresModule {}
