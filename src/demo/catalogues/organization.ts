// The fictional company behind the demo data: people, business units and products (entities),
// connected applications, risks and the custom fields on vulnerability findings. All names are
// invented; email addresses use the reserved example.com domain.

export const FIRST_NAMES = [
  'Ava',
  'Liam',
  'Maya',
  'Noah',
  'Priya',
  'Ethan',
  'Sofia',
  'Lucas',
  'Amara',
  'Mateo',
  'Chloe',
  'Arjun',
  'Emma',
  'Kenji',
  'Zara',
  'Oliver',
  'Leila',
  'Daniel',
  'Hana',
  'Samuel',
  'Isabel',
  'Tomás',
  'Nadia',
  'Felix',
  'Grace',
  'Omar',
  'Elena',
  'Victor',
  'Aisha',
  'Jonas',
  'Mei',
  'Rafael',
  'Ingrid',
  'Kwame',
  'Lucia',
  'Ravi',
  'Sara',
  'Theo',
  'Yara',
  'Marcus',
];

export const LAST_NAMES = [
  'Chen',
  'Okafor',
  'Patel',
  'Garcia',
  'Müller',
  'Johansson',
  'Kim',
  'Rossi',
  'Nguyen',
  'Silva',
  'Cohen',
  'Dubois',
  'Haddad',
  'Ivanova',
  'Kowalski',
  'Larsen',
  'Mensah',
  'Nakamura',
  "O'Brien",
  'Petrov',
  'Quinn',
  'Rahman',
  'Schmidt',
  'Tanaka',
  'Usman',
  'Varga',
  'Walsh',
  'Xu',
  'Yilmaz',
  'Zhang',
  'Andersen',
  'Bianchi',
  'Costa',
  'Diaz',
  'Eriksen',
  'Fischer',
  'Gupta',
  'Hughes',
  'Ito',
  'Jensen',
];

export const EMAIL_DOMAIN = 'example.com';

/** business units and products; scaled demos add product × region combinations */
export const ENTITIES = [
  'Acme Cloud Platform',
  'Payments',
  'Mobile App',
  'Data Platform',
  'Corporate IT',
  'EU Operations',
  'US Operations',
  'Customer Support Portal',
];
export const ENTITY_PRODUCTS = [
  'Payments',
  'Mobile App',
  'Data Platform',
  'Identity Service',
  'Billing',
  'Messaging',
  'Reporting',
  'Search',
];
export const ENTITY_REGIONS = ['EU', 'US', 'APAC', 'LATAM', 'India', 'UK'];

export const APPLICATIONS = [
  'Okta',
  'AWS',
  'GitHub',
  'Google Workspace',
  'Google Cloud',
  'Microsoft Azure',
  'Slack',
  'Jira',
  'Datadog',
  'Cloudflare',
  'Kubernetes',
  'Snowflake',
  'Jamf',
  'CrowdStrike',
  '1Password',
  'PagerDuty',
  'BambooHR',
  'KnowBe4',
];

export const RISKS = [
  'Unauthorized access to production data',
  'Account takeover through phished credentials',
  'Ransomware on corporate endpoints',
  'Leak of customer personal data',
  'Outage of the primary cloud region',
  'Compromise of a critical SaaS vendor',
  'Malicious dependency in the software supply chain',
  'Insider misuse of privileged access',
  'Loss of unencrypted laptop',
  'Misconfigured public storage bucket',
  'Unpatched internet-facing service exploited',
  'Secrets committed to source control',
  'Backup restore fails during an incident',
  'Regulatory fine for late breach notification',
  'Denial-of-service attack on public APIs',
  'Fraudulent payment transactions',
  'Loss of key security staff',
  'Incomplete asset inventory hides shadow IT',
  'Logging gaps delay incident detection',
  'Weak change control causes production outage',
  'Third-party access not revoked after contract end',
  'Cross-tenant data exposure in multi-tenant platform',
  'Cloud cost spike from compromised credentials',
  'Physical intrusion at office premises',
  'Inaccurate data in financial reporting systems',
];

export interface CustomFieldTemplate {
  title: string;
  fieldType: 'text_box' | 'dropdown';
  options: string[];
  /** share of findings that hold a value */
  fill: number;
  /** sample values for text boxes */
  samples?: string[];
}

export const VULNERABILITY_CUSTOM_FIELDS: readonly CustomFieldTemplate[] = [
  { title: 'Business impact', fieldType: 'dropdown', options: ['Low', 'Medium', 'High', 'Critical'], fill: 0.5 },
  { title: 'Owning team', fieldType: 'dropdown', options: ['Platform', 'Payments', 'Mobile', 'Data', 'IT', 'Security'], fill: 0.4 },
  {
    title: 'Remediation notes',
    fieldType: 'text_box',
    options: [],
    fill: 0.2,
    samples: [
      'Upgrade scheduled for next sprint',
      'Waiting on vendor patch',
      'Mitigated by WAF rule',
      'Compensating control: service not internet-facing',
      'Fix merged, pending deploy',
      'Accepted until Q3 review',
    ],
  },
  {
    title: 'Exception reference',
    fieldType: 'text_box',
    options: [],
    fill: 0.05,
    samples: ['EXC-2025-014', 'EXC-2025-031', 'EXC-2026-002'],
  },
];
