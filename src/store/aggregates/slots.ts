/** Device slots of heat bins and scroll histograms: the device classes of insights.ts, plus `u` for an unknown viewport width. */
import { deviceOf, type Device } from '../insights.js'

export type DeviceSlot = 'm' | 't' | 'd' | 'u'
export const DEVICE_SLOT: Record<Device, DeviceSlot> = { mobile: 'm', tablet: 't', desktop: 'd' }
export const ALL_SLOTS: readonly DeviceSlot[] = ['m', 't', 'd', 'u']

export function slotOf(viewportWidth: number | undefined): DeviceSlot {
  const device = deviceOf(viewportWidth)
  return device ? DEVICE_SLOT[device] : 'u'
}
