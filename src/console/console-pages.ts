import { createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ConsoleIdentity, ConsoleRequest } from '../auth/principal.js';
import { APP_CONFIG, type AppConfig } from '../config/app.config.js';
import type { Html } from './html.js';
import type { PageContext } from './pages/layout.js';
import type { StoreFormValues } from './pages/store-pages.js';
import { platformFormSource } from '../platform/platform.service.js';

/** What the guard established for this console request, as pages need it. */
export const CurrentPage = createParamDecorator((_: unknown, context: ExecutionContext): PageContext =>
  pageContext(context.switchToHttp().getRequest<Request>()),
);

/** The signed-in console identity; only on `@ConsolePage({ signedIn: true })` routes. */
export const SignedIn = createParamDecorator((_: unknown, context: ExecutionContext): ConsoleIdentity => {
  const identity = context.switchToHttp().getRequest<Request>().console?.identity;
  if (!identity) throw new Error('SignedIn used on a console route that does not require a session');
  return identity;
});

export function pageContext(request: Request): PageContext {
  const console: ConsoleRequest | undefined = request.console;
  return { csrfToken: console?.csrfToken ?? '', email: console?.identity?.email ?? null };
}

/** A form field as text: absent or repeated fields read as empty. */
export const formText = (body: Record<string, unknown>, name: string): string =>
  typeof body[name] === 'string' ? (body[name] as string) : '';

/** A store's form (create or settings) as sent: the currency read as the API spells it. */
export const storeFormValues = (body: Record<string, unknown>): StoreFormValues => ({
  name: formText(body, 'name'),
  currency: formText(body, 'currency').trim().toUpperCase(),
  unit_system: formText(body, 'unit_system'),
});

/** Sends console pages: never cached, and allowed to load only the service's own scripts and styles. */
@Injectable()
export class PageSender {
  private readonly policy: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const platform = platformFormSource(config.platform);
    this.policy = [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      `form-action 'self'${platform ? ` ${platform}` : ''}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; ');
  }

  send(response: Response, status: number, page: Html, headers: Readonly<Record<string, string>> = {}): void {
    this.secure(response);
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.status(status).type('text/html; charset=utf-8').send(page.value);
  }

  /** 303: after a form, the browser follows with a GET. */
  redirect(response: Response, location: string): void {
    this.secure(response);
    response.redirect(303, location);
  }

  private secure(response: Response): void {
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Content-Security-Policy', this.policy);
  }
}
