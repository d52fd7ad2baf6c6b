import { describe, expect, it } from '@jest/globals';
import { Body, Controller, Get, Post } from '@nestjs/common';
import { Public, RequireScope } from './access.decorators.js';
import { assertBodiesRead, handlersWithUnreadBodies } from './route-bodies.js';

@Controller('x')
class Mixed {
  @Public()
  @Post('webhook')
  webhook(@Body() body: unknown) {
    return body;
  }

  @Public()
  @Get('page')
  page() {
    return 'page';
  }

  @RequireScope('catalog')
  @Post('thing')
  thing(@Body() body: unknown) {
    return body;
  }
}

@Public()
@Controller('y')
class AllPublic {
  @Post()
  create(@Body() body: unknown) {
    return body;
  }
}

describe('bodies read by the access rule', () => {
  it('names each handler that takes @Body() under a rule that reads none, the class rule included', () => {
    expect(handlersWithUnreadBodies(Mixed)).toEqual(['Mixed.webhook']);
    expect(handlersWithUnreadBodies(AllPublic)).toEqual(['AllPublic.create']);
  });

  it('stops the start, naming them', () => {
    const modules = (...controllers: unknown[]) =>
      new Map([['m', { controllers: new Map(controllers.map((metatype, i) => [String(i), { metatype }])) }]]) as never;
    expect(() => assertBodiesRead(modules(Mixed, AllPublic))).toThrow(/Mixed\.webhook, AllPublic\.create take @Body\(\)/);
    expect(() => assertBodiesRead(modules())).not.toThrow();
  });
});
