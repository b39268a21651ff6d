import { Command } from '@nestjs/cqrs';
import type { AppCommand, CommandMetadata } from '#application/command.js';

/**
 * An application command the reactor sends (`Sent`: `{ type, data, metadata }`, libs/application/src/command.ts) as a
 * class the CommandBus routes by: its handler hands this very object to the use case, which answers `Result`.
 */
export abstract class ReactorCommand<Sent extends AppCommand, Result>
  extends Command<Result>
  implements AppCommand<Sent['type'], Sent['data']>
{
  abstract readonly type: Sent['type'];

  constructor(
    readonly data: Sent['data'],
    readonly metadata: CommandMetadata,
  ) {
    super();
  }
}
