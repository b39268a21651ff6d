import { Field, Float, type GqlTypeReference, ID, InputType, Int, InterfaceType, ObjectType } from '@nestjs/graphql';
import type { ReservationView } from '#read-model/index.js';
import { RESERVATION_VIEWS, type SharedView } from '#plugins/lease-view.js';
import { reservationType } from '#plugins/reservation-types.js';
import type { GraphqlField, GraphqlScalar } from '#plugins/view-schemas.js';
import { HistoryEntryType } from './history.types.js';

/** Blazar's lease event (start, end, before end) as GET /v1/leases/{id} shows it. */
@ObjectType('LeaseEvent')
export class LeaseEventType {
  @Field(() => String) created_at!: string;
  @Field(() => String, { nullable: true }) updated_at!: string | null;
  @Field(() => ID) id!: string;
  @Field(() => String) lease_id!: string;
  @Field(() => String, { description: 'start_lease, end_lease or before_end_lease' }) event_type!: string;
  @Field(() => String) time!: string;
  @Field(() => String, { description: 'UNDONE, IN_PROGRESS, DONE or ERROR' }) status!: string;
}

/** One booking of a reservation or on a resource: a whole host, instance slots on a host, or an address. */
@ObjectType('Slots')
export class SlotsType {
  @Field(() => Int) count!: number;
  @Field(() => Int) vcpus!: number;
  @Field(() => Int) memory_mb!: number;
  @Field(() => Int) disk_gb!: number;
}

@ObjectType('Allocation')
export class AllocationType {
  @Field(() => String, { description: 'host, floatingip or network (a network segment)' }) resource_kind!: string;
  @Field(() => String, { description: "The host's, the floating IP's or the network segment's id" }) resource_id!: string;
  @Field(() => String) reservation_id!: string;
  @Field(() => String) lease_id!: string;
  @Field(() => String, { description: 'UTC, as REST writes it: YYYY-MM-DDTHH:MM:SS.ffffff' }) start_date!: string;
  @Field(() => String, { description: 'UTC, as REST writes it: YYYY-MM-DDTHH:MM:SS.ffffff' }) end_date!: string;
  @Field(() => SlotsType, { nullable: true, description: 'Instance slots on the host; null for a whole host or an address' })
  slots!: SlotsType | null;
}

/** A reservation as GET /v1/leases/{id} shows it; the fields of its resource type on the implementing types. */
@InterfaceType('Reservation', { resolveType: (view: ReservationView) => reservationType(view.resource_type).view.name })
export abstract class ReservationType {
  @Field(() => String) created_at!: string;
  @Field(() => String, { nullable: true }) updated_at!: string | null;
  @Field(() => ID) id!: string;
  @Field(() => String) lease_id!: string;
  @Field(() => String) resource_id!: string;
  @Field(() => String) resource_type!: string;
  @Field(() => String) status!: string;
  @Field(() => Boolean) missing_resources!: boolean;
  @Field(() => Boolean) resources_changed!: boolean;
  @Field(() => String, { description: "What happens to the tenant's things at the lease's end" }) end_action!: string;
  @Field(() => [AllocationType], {
    nullable: true,
    description:
      'What the reservation holds (admins, as /v1/os-hosts/allocations and /v1/floatingips/allocations; null with an error for others)',
  })
  allocations!: AllocationType[] | null;
}

const SCALARS: Readonly<Record<GraphqlScalar, GqlTypeReference>> = { String, Int, Float, Boolean, ID };

/** The object type of one view of the registered types (HostReservation, ...): its module's fields after the interface's. */
const declareReservationType = (view: SharedView['view']): void => {
  const type = class extends ReservationType {};
  Object.defineProperty(type, 'name', { value: `${view.name}Type` });
  for (const [name, field] of Object.entries<GraphqlField>(view.graphql)) {
    const scalar = typeof field.type === 'string' ? SCALARS[field.type] : [SCALARS[field.type[0]]];
    const options = {
      ...(field.nullable === true ? { nullable: true } : {}),
      ...(field.description === undefined ? {} : { description: field.description }),
    };
    Field(() => scalar, options)(type.prototype, name);
  }
  ObjectType(view.name, { implements: () => [ReservationType] })(type);
};

for (const { view } of RESERVATION_VIEWS) declareReservationType(view);

/** A lease exactly as GET /v1/leases/{id} shows it, with its history from the log. */
@ObjectType('Lease')
export class LeaseType {
  @Field(() => String) created_at!: string;
  @Field(() => String, { nullable: true }) updated_at!: string | null;
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) user_id!: string;
  @Field(() => String) project_id!: string;
  @Field(() => String) start_date!: string;
  @Field(() => String) end_date!: string;
  @Field(() => String, { nullable: true }) trust_id!: string | null;
  @Field(() => String, { description: 'PENDING, STARTING, ACTIVE, TERMINATING, TERMINATED or ERROR' }) status!: string;
  @Field(() => Boolean) degraded!: boolean;
  @Field(() => [ReservationType]) reservations!: ReservationType[];
  @Field(() => [LeaseEventType]) events!: LeaseEventType[];
  @Field(() => [HistoryEntryType], { description: 'Every event of the lease in log order, as GET /v1/leases/{id}/history' })
  history!: HistoryEntryType[];
}

@ObjectType('LeaseEdge')
export class LeaseEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => LeaseType) node!: LeaseType;
}

@ObjectType('PageInfo')
export class PageInfoType {
  @Field(() => Boolean) hasNextPage!: boolean;
  @Field(() => String, { nullable: true }) endCursor!: string | null;
}

@ObjectType('LeaseConnection')
export class LeaseConnectionType {
  @Field(() => [LeaseEdgeType]) edges!: LeaseEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
}

@InputType('LeaseFilter')
export class LeaseFilterInput {
  @Field(() => String, { nullable: true, description: 'PENDING, STARTING, ACTIVE, TERMINATING, TERMINATED or ERROR' }) status?:
    string | null;
  @Field(() => String, { nullable: true, description: "A project's leases (admins; a member sees only its own project's)" }) project_id?:
    string | null;
  @Field(() => String, { nullable: true, description: 'The exact name' }) name?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Leases starting at or after this date (`YYYY-MM-DD HH:MM` UTC or ISO 8601 with a zone)',
  })
  starts_after?: string | null;
  @Field(() => String, { nullable: true, description: 'Leases ending at or before this date' }) ends_before?: string | null;
}
