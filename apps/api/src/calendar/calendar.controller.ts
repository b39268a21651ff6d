import { createReadStream } from 'node:fs';
import { Controller, Get, Header, NotFoundException, Param, StreamableFile, UseGuards } from '@nestjs/common';
import { KnownParameters } from '../http/known-parameters.guard.js';
import { CALENDAR_PAGE, CONTENT_SECURITY_POLICY, calendarAsset } from './calendar-page.js';

/**
 * The calendar page at `GET /calendar` and its files; outside /v1, so served without a token like
 * /docs. The page shows nothing until its own /v1 calls, made with the token typed into it, succeed.
 */
@Controller('calendar')
@UseGuards(KnownParameters)
export class CalendarController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Cache-Control', 'no-cache')
  page(): string {
    return CALENDAR_PAGE;
  }

  @Get(':asset')
  @Header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Cache-Control', 'no-cache')
  asset(@Param('asset') name: string): StreamableFile {
    const asset = calendarAsset(name);
    if (asset === null) throw new NotFoundException();
    if (asset.kind === 'text') return new StreamableFile(Buffer.from(asset.text), { type: asset.type });
    return new StreamableFile(createReadStream(asset.file), { type: asset.type });
  }
}
