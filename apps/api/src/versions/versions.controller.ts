import { Controller, Get, HttpCode, Req } from '@nestjs/common';
import type { Request } from '../http/exchange.js';

const versionDocument = (request: Request) => ({
  versions: [
    {
      id: 'v1.0',
      status: 'CURRENT',
      links: [{ href: `${request.protocol}://${request.headers.host ?? '127.0.0.1'}/v1`, rel: 'self' }],
      min_version: '1.0',
      max_version: '1.0',
    },
  ],
});

/** Version discovery, served without a token (keystoneauth discovers unauthenticated). */
@Controller()
export class VersionsController {
  @Get()
  @HttpCode(300)
  root(@Req() request: Request) {
    return versionDocument(request);
  }

  @Get('versions')
  @HttpCode(300)
  versions(@Req() request: Request) {
    return versionDocument(request);
  }
}
