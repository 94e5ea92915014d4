import { useCallback, useEffect, useRef, useState } from 'react';
import type { PickerPosition } from './institution-picker.queries.ts';

export type CurrentPosition =
  | { status: 'idle' }
  | { status: 'locating' }
  /** No permission, or no geolocation in this browser: only the user can change that. */
  | { status: 'denied' }
  /** Permission given, but no fix (indoors, timeout): worth another try. */
  | { status: 'unavailable' }
  | { status: 'located'; position: PickerPosition };

/** GeolocationPositionError.PERMISSION_DENIED. */
const permissionDenied = 1;

/** A phone's fix in a car park can take a while; past this the user is better off typing the name. */
const fixTimeoutMs = 15_000;

/**
 * The device's position, asked only when `locate` is called (a button press): a prompt for the
 * location permission on opening the form would be refused by habit, and would cost the battery.
 */
export function useCurrentPosition(): [CurrentPosition, () => void] {
  const [state, setState] = useState<CurrentPosition>({ status: 'idle' });
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const locate = useCallback(() => {
    const geolocation = typeof navigator === 'undefined' ? undefined : navigator.geolocation;
    if (!geolocation) {
      setState({ status: 'denied' });
      return;
    }
    setState({ status: 'locating' });
    geolocation.getCurrentPosition(
      (p) => {
        if (alive.current)
          setState({ status: 'located', position: { latitude: p.coords.latitude, longitude: p.coords.longitude } });
      },
      (error) => {
        if (alive.current) setState({ status: error.code === permissionDenied ? 'denied' : 'unavailable' });
      },
      { enableHighAccuracy: true, timeout: fixTimeoutMs, maximumAge: 60_000 },
    );
  }, []);

  return [state, locate];
}
