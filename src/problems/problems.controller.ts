import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators.js';
import { isProblemCode, PROBLEMS } from '../common/problems/problem-catalog.js';
import { ProblemError } from '../common/problems/problem-error.js';

/** The pages that error bodies point to with `type: "/problems/{code}"`. */
@ApiExcludeController()
@Controller('problems')
export class ProblemsController {
  @Get()
  @Public()
  @Header('Content-Type', 'text/html; charset=utf-8')
  index(): string {
    const rows = Object.entries(PROBLEMS)
      .map(([code, p]) => `<tr><td>${p.status}</td><td><a href="/problems/${code}"><code>${code}</code></a></td><td>${p.title}</td></tr>`)
      .join('\n');
    return page('Size-Fit error codes', `<table><tr><th>Status</th><th>Code</th><th>Title</th></tr>\n${rows}</table>`);
  }

  @Get(':code')
  @Public()
  @Header('Content-Type', 'text/html; charset=utf-8')
  show(@Param('code') code: string): string {
    if (!isProblemCode(code)) throw ProblemError.notFound('error code');
    const problem = PROBLEMS[code];
    return page(
      `${problem.title} (${code})`,
      `<p>HTTP status <strong>${problem.status}</strong>, <code>"code": "${code}"</code>.</p>\n<p>${problem.description}</p>\n` +
        '<p>Every error body is RFC 9457 problem details: <code>type</code>, <code>title</code>, <code>status</code>, ' +
        '<code>detail</code>, <code>code</code>, <code>request_id</code> and, for validation, <code>errors</code>. ' +
        'Branch on <code>status</code> and <code>code</code>, never on <code>detail</code>.</p>\n' +
        '<p><a href="/problems">All error codes</a></p>',
    );
  }
}

function page(title: string, body: string): string {
  const text = (s: string) => s.replace(/`([^`]+)`/g, '<code>$1</code>');
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>\n<body><h1>${title}</h1>\n${text(body)}\n</body></html>\n`;
}
