// Building blocks for third-party vulnerability findings. Titles are composed from a weakness and
// a component; CVE numbers are synthetic (they look real but are generated), so no record claims
// to describe a real advisory.

/** scanner family per source: decides components and affected resource types */
export const SOURCE_FAMILY: Readonly<Record<string, 'code' | 'host' | 'cloud' | 'mixed'>> = {
  aws: 'cloud',
  github: 'code',
  snyk: 'code',
  sonarcloud: 'code',
  qualys: 'host',
  defender: 'host',
  sentinelOne: 'host',
  aikido: 'code',
  tenable: 'host',
  import: 'mixed',
  api: 'mixed',
};

/** how often each source appears, relative */
export const SOURCE_WEIGHTS: readonly (readonly [string, number])[] = [
  ['aws', 14],
  ['github', 14],
  ['snyk', 14],
  ['sonarcloud', 8],
  ['qualys', 10],
  ['defender', 10],
  ['sentinelOne', 6],
  ['aikido', 6],
  ['tenable', 10],
  ['import', 5],
  ['api', 3],
];

/** weaknesses of operating-system and runtime components */
export const HOST_WEAKNESSES = [
  'Remote code execution',
  'Privilege escalation',
  'Heap buffer overflow',
  'Use after free',
  'Integer overflow',
  'Denial of service',
  'Information disclosure',
  'Authentication bypass',
  'Improper certificate validation',
  'Out-of-bounds read',
];

/** weaknesses of application libraries */
export const WEAKNESSES = [
  'Prototype pollution',
  'Regular expression denial of service',
  'Server-side request forgery',
  'Remote code execution',
  'SQL injection',
  'Cross-site scripting',
  'Path traversal',
  'Improper certificate validation',
  'Deserialization of untrusted data',
  'HTTP request smuggling',
  'Information exposure',
  'Privilege escalation',
  'Out-of-bounds write',
  'Use after free',
  'Resource exhaustion',
  'Open redirect',
  'Authentication bypass',
  'Improper input validation',
  'Command injection',
  'XML external entity injection',
];

export const CODE_COMPONENTS = [
  'lodash',
  'axios',
  'express',
  'jsonwebtoken',
  'minimist',
  'follow-redirects',
  'ws',
  'semver',
  'tar',
  'xml2js',
  'log4j-core',
  'jackson-databind',
  'spring-web',
  'netty-codec-http',
  'requests',
  'urllib3',
  'PyYAML',
  'Django',
  'Flask',
  'Pillow',
  'golang.org/x/net',
  'rack',
  'nokogiri',
  'protobufjs',
];

export const HOST_COMPONENTS = [
  'OpenSSL',
  'libcurl',
  'glibc',
  'zlib',
  'nginx',
  'OpenSSH',
  'sudo',
  'Linux kernel',
  'Apache HTTP Server',
  'PostgreSQL server',
  'Microsoft Edge',
  'Google Chrome',
  'Windows SMB server',
  '7-Zip',
  'Python runtime',
];

export const CLOUD_COMPONENTS = [
  'Amazon Linux 2 kernel',
  'Lambda Node.js runtime',
  'ECR base image node:18',
  'ECR base image python:3.9',
  'EKS node AMI',
  'OpenSSL in ECS task image',
  'Bottlerocket host',
  'RDS PostgreSQL minor version',
];

/** findings without a CVE: code-quality and configuration issues */
export const NON_CVE_TITLES = [
  'Hard-coded credentials in configuration loader',
  'SQL query built from user input',
  'Weak hashing algorithm (MD5) for tokens',
  'Session cookie without Secure flag',
  'CSRF protection disabled on form endpoint',
  'Debug endpoint exposed in production',
  'Overly permissive CORS policy',
  'Sensitive data written to logs',
  'Missing rate limiting on login',
  'TLS 1.0 enabled on listener',
  'Outdated agent version on host',
  'Unrestricted file upload type',
  'Secrets stored in environment file in repository',
  'Container runs as root',
];

export const RESOURCE_TYPES: Readonly<Record<'code' | 'host' | 'cloud' | 'mixed', readonly string[]>> = {
  code: ['repository', 'container_image', 'package'],
  host: ['host', 'virtual_machine', 'endpoint'],
  cloud: ['ec2_instance', 'lambda_function', 'ecr_image'],
  mixed: ['host', 'application', 'repository'],
};

export const REPOSITORIES = [
  'acme/payments-api',
  'acme/web-frontend',
  'acme/mobile-app',
  'acme/data-pipeline',
  'acme/identity-service',
  'acme/billing-worker',
  'acme/infra-terraform',
  'acme/search-indexer',
  'acme/support-portal',
  'acme/reporting',
];

export const RESOURCE_TAGS = [
  'env:prod',
  'env:staging',
  'env:dev',
  'team:platform',
  'team:payments',
  'team:mobile',
  'team:data',
  'pci',
  'internet-facing',
  'critical',
  'owner:sre',
];

export const REMEDIATIONS = [
  'Upgrade the component to the latest patched release.',
  'Apply the vendor security update and restart the service.',
  'Rebuild the image from a patched base image and redeploy.',
  'Rotate the exposed credential and move it to the secrets manager.',
  'Restrict the affected endpoint to internal networks until a fix ships.',
];
