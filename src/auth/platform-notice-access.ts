import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import express, { type Request, type Response } from 'express';
import { ProblemError } from '../common/problems/problem-error.js';
import { APP_CONFIG, type AppConfig } from '../config/app.config.js';

/** The largest notification the platform sends (an order of a few hundred lines); anything larger is refused. */
const NOTIFICATION_LIMIT = '1mb';
const readBytes = express.raw({ type: () => true, limit: NOTIFICATION_LIMIT });

/**
 * Admits a notification from the e-commerce platform: its `X-Shop-Hmac-Sha256` header must be the base64
 * HMAC-SHA256 of the body's bytes, as received, under the app's client secret, compared in constant time. The bytes
 * are read (at most 1 MiB) to compute it, and nothing parses them before the signature holds; the route then gets them
 * as a Buffer in `request.body`. Without a platform configured there is no such route (404).
 */
@Injectable()
export class PlatformNoticeAccess {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async admit(request: Request, response: Response): Promise<void> {
    const platform = this.config.platform;
    if (platform === null) throw new ProblemError('not_found', 'No such route');
    const signature = request.get('x-shop-hmac-sha256');
    if (signature === undefined || !/^[A-Za-z0-9+/]{43}=$/.test(signature)) throw invalidSignature();
    await new Promise<void>((resolve, reject) => readBytes(request, response, (error?: unknown) => (error ? reject(error) : resolve())));
    const body: unknown = request.body;
    const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
    const expected = createHmac('sha256', platform.clientSecret).update(bytes).digest();
    if (!timingSafeEqual(expected, Buffer.from(signature, 'base64'))) throw invalidSignature();
    request.body = bytes;
  }
}

const invalidSignature = () =>
  new ProblemError('invalid_signature', 'The notification is not signed with this app’s secret (X-Shop-Hmac-Sha256)');
