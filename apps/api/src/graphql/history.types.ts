import { Field, Float, ObjectType } from '@nestjs/graphql';
import { JsonScalar } from './json.scalar.js';

@ObjectType('Actor')
export class ActorType {
  @Field(() => String, { nullable: true }) user_id!: string | null;
  @Field(() => String, { nullable: true }) project_id!: string | null;
  @Field(() => String, { nullable: true, description: 'Leasehold itself (reactor, healing) when no user caused it' }) system!:
    string | null;
}

/** One event of the log as GET .../history and GET /v1/events show it (docs/events.md). */
@ObjectType('HistoryEntry')
export class HistoryEntryType {
  @Field(() => Float, { description: 'The log position (an integer)' }) position!: number;
  @Field(() => String) recorded_at!: string;
  @Field(() => String) type!: string;
  @Field(() => ActorType) actor!: ActorType;
  @Field(() => String, { nullable: true }) request_id!: string | null;
  @Field(() => String) correlation_id!: string;
  @Field(() => String) causation_id!: string;
  @Field(() => String) summary!: string;
  @Field(() => JsonScalar) data!: Record<string, unknown>;
}
