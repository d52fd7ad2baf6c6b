import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ConsoleAccountsService } from '../console-accounts/console-accounts.service.js';
import { clearTokenCookie, csrfToken, readToken, SESSION_COOKIE } from '../console-accounts/console-credentials.js';
import { PROBLEMS } from '../common/problems/problem-catalog.js';
import { asProblem } from '../common/problems/problem-details.filter.js';
import type { ProblemPages } from '../common/problems/problem-pages.js';
import type { ProblemError } from '../common/problems/problem-error.js';
import { redactSecrets } from '../common/http/redact.js';
import { ConsoleError } from '../common/problems/console-error.js';
import { PageSender, pageContext } from './console-pages.js';
import { errorPage } from './pages/account-pages.js';
import type { PageContext } from './pages/layout.js';
import { logInAddress, returnPathOf } from './return-path.js';

/** Console failures as pages: a sign-in for a missing session, an error page for the rest. Never JSON. */
@Catch()
export class ConsolePageFilter implements ExceptionFilter {
  private readonly logger = new Logger('Console');

  constructor(
    private readonly pages: PageSender,
    private readonly accounts: ConsoleAccountsService,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) {
      response.end();
      return;
    }
    const context = pageContext(request);
    const storeId = request.store?.id;
    const back = storeId ? { href: `/console/stores/${storeId}`, label: 'Back to the store' } : undefined;

    if (exception instanceof ConsoleError) {
      this.pages.send(
        response,
        exception.status,
        errorPage(context, { status: exception.status, code: exception.code, title: exception.title, message: exception.message, back }),
      );
      return;
    }
    const problem = asProblem(exception);
    if (problem.code === 'unauthenticated') {
      // A session cookie that no longer opens a session: signed out elsewhere, or idle too long. The sign-in page says
      // so, and leads back to where the person was. A browser that never signed in is sent to the bare sign-in page:
      // nothing of the address it asked for (a store's id) is echoed to it.
      const ended = readToken(request, SESSION_COOKIE) !== null;
      if (ended) clearTokenCookie(response, SESSION_COOKIE, this.accounts.secureCookies);
      this.pages.redirect(response, logInAddress({ ended, back: ended ? returnPathOf(request) : null }));
      return;
    }
    if (problem.status >= 500) this.logger.error({ err: exception, request_id: request.id }, 'console page failed');
    void this.signedInContext(request).then(
      (signedIn) => sendProblemPage(this.pages, request, response, problem, back, signedIn),
      (error: unknown) => {
        this.logger.error({ err: error, request_id: request.id }, 'console error page could not read the session');
        sendProblemPage(this.pages, request, response, problem, back);
      },
    );
  }

  /**
   * The page's header for a signed-in browser even where no route read the session (an unknown address under
   * /console, a refusal before the route): its email, Access, Password and a Log out form with the session's token.
   */
  private async signedInContext(request: Request): Promise<PageContext> {
    if (request.console?.identity) return pageContext(request);
    const session = await this.accounts.sessionOf(request);
    return session === null ? pageContext(request) : { csrfToken: csrfToken(session.token), email: session.identity.email };
  }
}

/** A problem as a console error page (also for console addresses that never reach a console route). */
function sendProblemPage(
  pages: PageSender,
  request: Request,
  response: Response,
  problem: ProblemError,
  back?: { href: string; label: string },
  context: PageContext = pageContext(request),
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const message =
    problem.code === 'internal_error'
      ? 'Something failed inside the service. Try again; if it keeps failing, quote the request id below.'
      : redactSecrets(problem.errors?.map((error) => error.message).join('; ') || problem.detail || PROBLEMS[problem.code].title);
  const page = errorPage(context, {
    status: problem.status,
    code: problem.code,
    // in a web console "not found" is a page: an unknown address, or a store that is not (or not yours)
    title: problem.code === 'not_found' ? 'Page not found' : PROBLEMS[problem.code].title,
    message,
    back,
    requestId: String(request.id ?? ''),
  });
  pages.send(response, problem.status, page, problem.headers);
}

/** Console pages, not the API's JSON, for every address under /console but its assets. */
const isConsolePage = (path: string): boolean =>
  (path === '/console' || path.startsWith('/console/')) && !path.startsWith('/console/assets/');

/** What the service's error filter uses for console addresses that reach no console route. */
@Injectable()
export class ConsoleProblemPages implements ProblemPages {
  constructor(private readonly pages: PageSender) {}

  owns(request: Request): boolean {
    return isConsolePage(request.path);
  }

  send(request: Request, response: Response, problem: ProblemError): void {
    sendProblemPage(this.pages, request, response, problem);
  }
}
