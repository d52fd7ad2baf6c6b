import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ConsolePage } from '../auth/access.decorators.js';
import { ConsoleAccountsService } from '../console-accounts/console-accounts.service.js';
import { ANONYMOUS_COOKIE, clearTokenCookie, readToken, SESSION_COOKIE, setTokenCookie } from '../console-accounts/console-credentials.js';
import { type ConsoleIdentity, CurrentPrincipal, type MerchantPrincipal } from '../auth/principal.js';
import { isId } from '../common/http/ids.js';
import { StoresService } from '../stores/stores.service.js';
import { CreateStoreRequest } from '../stores/dto/store.dto.js';
import { validateObject } from '../common/validation/validation.pipe.js';
import { ConsolePageFilter } from './console-page.filter.js';
import { formText, CurrentPage, PageSender, SignedIn, storeFormValues } from './console-pages.js';
import { accessPage, errorPage, logInPage, passwordPage, signUpPage } from './pages/account-pages.js';
import type { PageContext } from './pages/layout.js';
import { storesPage } from './pages/store-pages.js';
import { logInAddress, safeReturnPath } from './return-path.js';

/** Whatever is wrong with the key at sign-up, one answer (decision 005), in the words of the form. */
const ADMIN_KEY_REFUSED =
  'This key cannot create an account. Use the merchant’s admin key (sfk_…) for all stores, one that is not revoked or expired.';

/** Sign-up, sign-in, sign-out, the password, who has access, and the list of the merchant's stores. */
@ApiExcludeController()
@UseFilters(ConsolePageFilter)
@Controller('console')
export class ConsoleAccountsController {
  constructor(
    private readonly accounts: ConsoleAccountsService,
    private readonly stores: StoresService,
    private readonly pages: PageSender,
  ) {}

  @Get()
  @ConsolePage({ signedIn: true })
  async home(
    @CurrentPage() page: PageContext,
    @CurrentPrincipal() principal: MerchantPrincipal,
    @Query('after') after: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const stores = await this.stores.list(principal, { limit: 100, ...(isId(after) ? { starting_after: after } : {}) });
    this.pages.send(response, 200, storesPage(page, stores.data, stores.next_cursor));
  }

  /** A new store, through the API's own rules; the merchant lands on it, ready to set its catalog up. */
  @Post('stores')
  @ConsolePage({ signedIn: true })
  async createStore(
    @CurrentPage() page: PageContext,
    @CurrentPrincipal() principal: MerchantPrincipal,
    @Body() body: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    const values = storeFormValues(body);
    const checked = await validateObject(CreateStoreRequest, values);
    if (!checked.ok) {
      const stores = await this.stores.list(principal, { limit: 100 });
      this.pages.send(response, 422, storesPage(page, stores.data, stores.next_cursor, { values, errors: checked.errors }));
      return;
    }
    const store = await this.stores.create(principal, checked.value);
    this.pages.redirect(response, `/console/stores/${store.id}?created=1`);
  }

  /**
   * Someone already signed in (a bookmark, the back button) is taken on rather than asked to sign in again.
   * `ended=1`: a session of this browser ended (console-page.filter.ts); `return`: where to go after signing in.
   */
  @Get('login')
  @ConsolePage({ signedIn: false })
  async logInForm(
    @CurrentPage() page: PageContext,
    @Query('ended') ended: unknown,
    @Query('return') back: unknown,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const returnTo = safeReturnPath(back);
    if ((await this.accounts.sessionOf(request)) !== null) return this.pages.redirect(response, returnTo ?? '/console');
    this.pages.send(response, 200, logInPage(page, { ended: ended === '1', returnTo }));
  }

  @Post('login')
  @ConsolePage({ signedIn: false })
  async logIn(
    @CurrentPage() page: PageContext,
    @Body() body: Record<string, unknown>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const email = formText(body, 'email');
    const returnTo = safeReturnPath(formText(body, 'return'));
    const result = await this.accounts.logIn(email, formText(body, 'password'), clientAddress(request));
    if (result.ok) return this.signedIn(response, result.token, returnTo ?? '/console');
    if (result.reason === 'too_many_attempts') return this.tooManyAttempts(page, response, result.retryAfterSeconds, returnTo);
    this.pages.send(response, 401, logInPage(page, { email, failed: true, returnTo }));
  }

  @Get('signup')
  @ConsolePage({ signedIn: false })
  signUpForm(@CurrentPage() page: PageContext, @Query('return') back: unknown, @Res() response: Response): void {
    this.pages.send(response, 200, signUpPage(page, { returnTo: safeReturnPath(back) }));
  }

  @Post('signup')
  @ConsolePage({ signedIn: false })
  async signUp(
    @CurrentPage() page: PageContext,
    @Body() body: Record<string, unknown>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const form = { adminKey: formText(body, 'admin_key'), email: formText(body, 'email'), password: formText(body, 'password') };
    const returnTo = safeReturnPath(formText(body, 'return'));
    const result = await this.accounts.signUp(form, clientAddress(request));
    if (result.ok) return this.signedIn(response, result.token, returnTo ?? '/console');
    if ('reason' in result) return this.tooManyAttempts(page, response, result.retryAfterSeconds, returnTo);
    const errors = result.errors.map((error) => (error.field === 'admin_key' ? { ...error, message: ADMIN_KEY_REFUSED } : error));
    this.pages.send(response, 422, signUpPage(page, { email: form.email, errors, returnTo }));
  }

  /** Signing out is a form (a link could be followed by anyone's page); the address alone leads home. */
  @Get('logout')
  @ConsolePage({ signedIn: false })
  logOutAddress(@Res() response: Response): void {
    this.pages.redirect(response, '/console');
  }

  @Post('logout')
  @ConsolePage({ signedIn: true })
  async logOut(@Req() request: Request, @Res() response: Response): Promise<void> {
    const token = readToken(request, SESSION_COOKIE);
    if (token !== null) await this.accounts.logOut(token);
    clearTokenCookie(response, SESSION_COOKIE, this.accounts.secureCookies);
    this.pages.redirect(response, '/console/login');
  }

  @Get('access')
  @ConsolePage({ signedIn: true })
  async access(
    @CurrentPage() page: PageContext,
    @SignedIn() identity: ConsoleIdentity,
    @Query('after') after: unknown,
    @Res() response: Response,
  ): Promise<void> {
    const accounts = await this.accounts.list(identity.merchantId, { limit: 100, ...(isId(after) ? { starting_after: after } : {}) });
    this.pages.send(response, 200, accessPage(page, { accounts: accounts.data, more: accounts.next_cursor, ownId: identity.accountId }));
  }

  /** Removing one's own account signs out; anyone else's sessions end at their next request. */
  @Post('access/:account_id/remove')
  @ConsolePage({ signedIn: true })
  async removeAccount(
    @SignedIn() identity: ConsoleIdentity,
    @Param('account_id') accountId: string,
    @Res() response: Response,
  ): Promise<void> {
    await this.accounts.remove(identity.merchantId, accountId);
    if (accountId !== identity.accountId) return this.pages.redirect(response, '/console/access');
    clearTokenCookie(response, SESSION_COOKIE, this.accounts.secureCookies);
    this.pages.redirect(response, '/console/login');
  }

  /** `?changed=1` is where a successful change leads: the notice on a page a reload does not send again. */
  @Get('password')
  @ConsolePage({ signedIn: true })
  passwordForm(@CurrentPage() page: PageContext, @Query('changed') changed: unknown, @Res() response: Response): void {
    this.pages.send(response, 200, passwordPage(page, { changed: changed === '1' }));
  }

  @Post('password')
  @ConsolePage({ signedIn: true })
  async changePassword(
    @CurrentPage() page: PageContext,
    @SignedIn() identity: ConsoleIdentity,
    @Body() body: Record<string, unknown>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const result = await this.accounts.changePassword(
      identity,
      formText(body, 'current_password'),
      formText(body, 'new_password'),
      clientAddress(request),
    );
    if ('reason' in result) return this.tooManyAttempts(page, response, result.retryAfterSeconds);
    if (!result.ok) return this.pages.send(response, 422, passwordPage(page, { errors: result.errors }));
    // The old session is gone with the others: this browser continues on a new one (and the next page's forms carry
    // its CSRF token). A redirect, so that reloading the notice does not send the form again with the old token.
    setTokenCookie(response, SESSION_COOKIE, result.token, this.accounts.secureCookies);
    this.pages.redirect(response, '/console/password?changed=1');
  }

  private signedIn(response: Response, token: string, next = '/console'): void {
    setTokenCookie(response, SESSION_COOKIE, token, this.accounts.secureCookies);
    clearTokenCookie(response, ANONYMOUS_COOKIE, this.accounts.secureCookies);
    this.pages.redirect(response, next);
  }

  /** `returnTo`: where signing in was to lead (already checked by safeReturnPath); the way back to log in keeps it. */
  private tooManyAttempts(page: PageContext, response: Response, retryAfterSeconds: number, returnTo: string | null = null): void {
    this.pages.send(
      response,
      429,
      errorPage(page, {
        status: 429,
        code: 'too_many_attempts',
        title: 'Too many attempts',
        message: `Too many failed attempts from here or for this account. Try again in ${waitInWords(retryAfterSeconds)}.`,
        back: { href: logInAddress({ ended: false, back: returnTo }), label: 'Back to log in' },
      }),
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

/** The wait Retry-After names, as a person reads it: seconds under a minute, else whole minutes rounded up. */
function waitInWords(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

const clientAddress = (request: Request): string => request.ip ?? request.socket.remoteAddress ?? 'unknown';
