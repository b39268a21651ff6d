import type { FlavorViewer } from '#domain/index.js';
import type { AdmissionContext, AdmissionSchedule } from '#plugins/admission/admission.port.js';
import type { ApplicationContext } from '../application-context.js';
import { BookingPlan } from './booking-plan.js';

/** Fresh working copies of the calendars (after the index caught up), under the application's settings. */
export const bookingPlan = ({ index, settings }: ApplicationContext): BookingPlan =>
  new BookingPlan(index, { cleaningTimeMinutes: settings.cleaningTimeMinutes, allocationRatios: settings.allocationRatios });

/** What the admission modules decide one lease's reservations with. */
export const admissionContext = (
  app: ApplicationContext,
  calendars: BookingPlan,
  schedule: AdmissionSchedule,
  caller: FlavorViewer,
): AdmissionContext => ({
  calendars,
  schedule,
  caller: { isAdmin: caller.isAdmin },
  flavors: app.index.flavorCatalog().state,
  newId: app.newId,
});
