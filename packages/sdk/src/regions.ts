// The service runs per region, each at its own base URL, and a credential works only with its
// own region's. The spec names no hostnames: these are the addresses this SDK assumes for the
// hosted service; a self-hosted deployment passes `baseUrl` instead.

export const REGIONS = ['in', 'us', 'eu', 'au'] as const;
export type Region = (typeof REGIONS)[number];

export const REGION_BASE_URLS: Readonly<Record<Region, string>> = {
  in: 'https://api.in.compliance-data.example',
  us: 'https://api.us.compliance-data.example',
  eu: 'https://api.eu.compliance-data.example',
  au: 'https://api.au.compliance-data.example',
};

export function isRegion(value: unknown): value is Region {
  return typeof value === 'string' && (REGIONS as readonly string[]).includes(value);
}
