import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { PlatformNotification } from '../auth/access.decorators.js';
import { NOTICES_PATH } from './notices-path.js';
import { PlatformNoticesService } from './platform-notices.service.js';

/**
 * Where the e-commerce platform delivers a connected shop's notifications (the app's webhook address). Outside `/v1`
 * and the OpenAPI document: the platform, not an integrator, calls it. Answered as soon as the notification is kept;
 * a job processes it.
 */
@ApiExcludeController()
@Controller()
export class PlatformNoticesController {
  constructor(private readonly notices: PlatformNoticesService) {}

  @Post(NOTICES_PATH.slice(1))
  @HttpCode(200)
  @PlatformNotification()
  async receive(@Req() request: Request): Promise<{ received: true; duplicate: boolean }> {
    const { duplicate } = await this.notices.receive({
      shop: request.get('x-shop-domain'),
      topic: request.get('x-shop-topic'),
      deliveryId: request.get('x-shop-webhook-id'),
      body: request.body as Buffer,
    });
    return { received: true, duplicate };
  }
}
