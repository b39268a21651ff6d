import { Field, Float, Int, ObjectType } from '@nestjs/graphql';
import { JsonScalar } from './json.scalar.js';

@ObjectType('ReservationSupply')
export class ReservationSupplyType {
  @Field(() => String) resource_type!: string;
  @Field(() => Int, { description: 'min for hosts, amount for instances and floating IPs' }) requested!: number;
  @Field(() => Int) matching!: number;
  @Field(() => Int) free!: number;
}

@ObjectType('AvailabilityWindow')
export class AvailabilityWindowType {
  @Field(() => String) start_date!: string;
  @Field(() => String) end_date!: string;
  @Field(() => [ReservationSupplyType]) reservations!: ReservationSupplyType[];
}

/** POST /v1/availability's answer. */
@ObjectType('Availability')
export class AvailabilityType {
  @Field(() => [AvailabilityWindowType]) windows!: AvailabilityWindowType[];
  @Field(() => String, { nullable: true }) searched_until!: string | null;
  @Field(() => JsonScalar, { nullable: true, description: 'Why no window was found, as POST /v1/availability says it; null when one was' })
  reason!: unknown;
}

/** GET /v1/usage's report (docs/usage.md); its lines and totals as REST gives them. */
@ObjectType('UsageReport')
export class UsageReportType {
  @Field(() => String) start!: string;
  @Field(() => String) end!: string;
  @Field(() => String, { nullable: true }) project_id!: string | null;
  @Field(() => String) group_by!: string;
  @Field(() => Float) as_of_position!: number;
  @Field(() => String) as_of!: string;
  @Field(() => String, { description: 'What running leases are counted up to: the window end, or `until` (default: now) if earlier' })
  until!: string;
  @Field(() => JsonScalar, { nullable: true }) rate_card!: unknown;
  @Field(() => JsonScalar) lines!: unknown;
  @Field(() => JsonScalar) totals!: unknown;
}

/** GET /v1/capacity's report (docs/availability.md): the pools and leases exactly as REST gives them. */
@ObjectType('CapacityReport')
export class CapacityReportType {
  @Field(() => String) start!: string;
  @Field(() => String) end!: string;
  @Field(() => Int) step_minutes!: number;
  @Field(() => String, { nullable: true }) failure_domain!: string | null;
  @Field(() => JsonScalar, {
    description: 'Per availability zone and resource type (and per network type and physical network for segments), the steps',
  })
  pools!: unknown;
  @Field(() => JsonScalar, { nullable: true, description: 'With failure_domain: the leases holding two hosts or more' }) leases!: unknown;
}
