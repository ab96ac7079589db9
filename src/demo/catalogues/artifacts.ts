// Templates for the compliance artifacts: policies, evidence requests and tests. Each names the
// NIST CSF categories it mostly serves, so artifacts map to controls of matching domains.
// Written for this project; any resemblance to a product's template library is generic.

export interface PolicyTemplate {
  name: string;
  categories: readonly string[];
}

export const POLICY_TEMPLATES: readonly PolicyTemplate[] = (
  [
    ['Information Security Policy', ['GV.PO', 'GV.RR']],
    ['Acceptable Use Policy', ['ID.AM', 'PR.AT']],
    ['Access Control Policy', ['PR.AA']],
    ['Password and Authentication Standard', ['PR.AA']],
    ['Asset Management Policy', ['ID.AM']],
    ['Data Classification Policy', ['ID.AM', 'PR.DS']],
    ['Data Retention and Disposal Policy', ['PR.DS']],
    ['Encryption Policy', ['PR.DS']],
    ['Cryptographic Key Management Standard', ['PR.DS']],
    ['Backup Policy', ['PR.DS', 'RC.RP']],
    ['Business Continuity Policy', ['RC.RP', 'PR.IR']],
    ['Disaster Recovery Plan', ['RC.RP', 'RC.CO']],
    ['Incident Response Plan', ['RS.MA', 'RS.AN', 'RS.CO', 'RS.MI']],
    ['Vulnerability Management Policy', ['ID.RA', 'PR.PS']],
    ['Patch Management Procedure', ['PR.PS']],
    ['Secure Development Policy', ['PR.PS']],
    ['Change Management Policy', ['PR.PS']],
    ['Logging and Monitoring Policy', ['DE.CM', 'DE.AE', 'PR.PS']],
    ['Network Security Policy', ['PR.IR', 'DE.CM']],
    ['Vendor Management Policy', ['GV.SC']],
    ['Risk Management Policy', ['GV.RM', 'ID.RA']],
    ['Security Awareness Training Policy', ['PR.AT']],
    ['Physical Security Policy', ['PR.AA', 'PR.IR', 'DE.CM']],
    ['Human Resources Security Policy', ['GV.RR', 'PR.AT']],
    ['Remote Work Policy', ['PR.AA', 'PR.IR']],
    ['Mobile Device Policy', ['ID.AM', 'PR.PS']],
    ['Privacy and Data Protection Policy', ['GV.OC', 'PR.DS']],
    ['Code of Conduct', ['GV.RR', 'GV.OC']],
    ['Cloud Security Policy', ['PR.PS', 'PR.IR']],
    ['Threat Intelligence Procedure', ['ID.RA', 'DE.AE']],
    ['Clear Desk and Clear Screen Policy', ['PR.IR']],
    ['Capacity Management Procedure', ['PR.IR']],
    ['Internal Audit Charter', ['GV.OV', 'ID.IM']],
    ['Security Exception Procedure', ['ID.RA', 'GV.RM']],
  ] as const
).map(([name, categories]) => ({ name, categories }));

export interface EvidenceTemplate {
  name: string;
  categories: readonly string[];
  method: 'manual' | 'automated' | 'semi_automated';
  recurrence: 'monthly' | 'quarterly' | 'semi_annually' | 'yearly' | 'one_time';
}

export const EVIDENCE_TEMPLATES: readonly EvidenceTemplate[] = (
  [
    ['Quarterly user access review', ['PR.AA'], 'semi_automated', 'quarterly'],
    ['MFA enforcement settings from the identity provider', ['PR.AA'], 'automated', 'quarterly'],
    ['New hire onboarding checklist', ['PR.AA', 'GV.RR'], 'manual', 'monthly'],
    ['Offboarding access removal records', ['PR.AA'], 'semi_automated', 'monthly'],
    ['Background check confirmations', ['GV.RR'], 'manual', 'quarterly'],
    ['Signed confidentiality agreements', ['PR.AT', 'GV.RR'], 'manual', 'yearly'],
    ['Security awareness training completion report', ['PR.AT'], 'automated', 'yearly'],
    ['Phishing simulation results', ['PR.AT'], 'automated', 'quarterly'],
    ['Hardware asset inventory export', ['ID.AM'], 'automated', 'quarterly'],
    ['Software and SaaS inventory export', ['ID.AM'], 'automated', 'quarterly'],
    ['Network architecture diagram', ['ID.AM', 'PR.IR'], 'manual', 'yearly'],
    ['Data flow diagram', ['ID.AM'], 'manual', 'yearly'],
    ['Annual risk assessment report', ['ID.RA', 'GV.RM'], 'manual', 'yearly'],
    ['Risk register export', ['ID.RA'], 'semi_automated', 'quarterly'],
    ['Vulnerability scan report', ['ID.RA'], 'automated', 'monthly'],
    ['External penetration test report', ['ID.IM'], 'manual', 'yearly'],
    ['Penetration test remediation tracker', ['ID.IM', 'ID.RA'], 'manual', 'quarterly'],
    ['Patch compliance report', ['PR.PS'], 'automated', 'monthly'],
    ['Change approval records', ['PR.PS'], 'semi_automated', 'quarterly'],
    ['Code review enforcement settings', ['PR.PS'], 'automated', 'quarterly'],
    ['Branch protection configuration', ['PR.PS'], 'automated', 'quarterly'],
    ['Production deployment log', ['PR.PS'], 'automated', 'monthly'],
    ['Backup job success report', ['PR.DS'], 'automated', 'monthly'],
    ['Backup restore test results', ['PR.DS', 'RC.RP'], 'manual', 'semi_annually'],
    ['Disaster recovery test report', ['RC.RP'], 'manual', 'yearly'],
    ['Business continuity exercise summary', ['RC.RP'], 'manual', 'yearly'],
    ['Encryption at rest configuration', ['PR.DS'], 'automated', 'quarterly'],
    ['TLS configuration scan', ['PR.DS'], 'automated', 'quarterly'],
    ['Encryption key rotation records', ['PR.DS'], 'semi_automated', 'yearly'],
    ['Firewall rule review', ['PR.IR'], 'manual', 'semi_annually'],
    ['Autoscaling and load balancer configuration', ['PR.IR'], 'automated', 'quarterly'],
    ['Uptime and availability report', ['PR.IR'], 'automated', 'monthly'],
    ['SIEM alert rule export', ['DE.AE', 'DE.CM'], 'automated', 'quarterly'],
    ['Log retention settings', ['PR.PS', 'DE.CM'], 'automated', 'yearly'],
    ['EDR deployment coverage report', ['DE.CM'], 'automated', 'monthly'],
    ['Intrusion detection alert review', ['DE.CM', 'DE.AE'], 'manual', 'monthly'],
    ['Incident response tabletop exercise', ['RS.MA'], 'manual', 'yearly'],
    ['Incident postmortem reports', ['RS.AN'], 'manual', 'quarterly'],
    ['Incident communication templates', ['RS.CO', 'RC.CO'], 'manual', 'one_time'],
    ['Vendor security assessments', ['GV.SC'], 'manual', 'yearly'],
    ['Vendor inventory with criticality tiers', ['GV.SC'], 'semi_automated', 'semi_annually'],
    ['Signed data processing agreements', ['GV.SC', 'PR.DS'], 'manual', 'one_time'],
    ['Board security briefing minutes', ['GV.OV'], 'manual', 'quarterly'],
    ['Security metrics dashboard snapshot', ['GV.OV'], 'automated', 'monthly'],
    ['Policy acknowledgement records', ['GV.PO'], 'automated', 'yearly'],
    ['Policy review meeting minutes', ['GV.PO'], 'manual', 'yearly'],
    ['Regulatory obligations register', ['GV.OC'], 'manual', 'yearly'],
    ['Organization chart with security roles', ['GV.RR'], 'manual', 'semi_annually'],
    ['Office visitor log', ['PR.AA'], 'manual', 'monthly'],
    ['Status page incident history', ['RC.CO'], 'automated', 'quarterly'],
  ] as const
).map(([name, categories, method, recurrence]) => ({ name, categories, method, recurrence }));

/** the shape of a test's flagged resources */
export type ResourceKind = 'user' | 'saas' | 'repo' | 'endpoint' | 'aws' | 'gcp' | 'azure' | 'k8s';

export interface TestTemplate {
  slug: string;
  name: string;
  kind: 'automated' | 'cloud';
  applications: readonly string[];
  category: string;
  resource: ResourceKind;
}

type T = readonly [string, string, readonly string[], string, ResourceKind];
const auto = (rows: readonly T[]) =>
  rows.map(([slug, name, applications, category, resource]) => ({
    slug,
    name,
    kind: 'automated' as const,
    applications,
    category,
    resource,
  }));
const cloud = (rows: readonly T[]) =>
  rows.map(([slug, name, applications, category, resource]) => ({ slug, name, kind: 'cloud' as const, applications, category, resource }));

export const TEST_TEMPLATES: readonly TestTemplate[] = [
  ...auto([
    ['mfa_enforced_on_idp', 'MFA is enforced on the identity provider', ['Okta'], 'PR.AA', 'user'],
    ['sso_required_for_saas_apps', 'SSO is required for connected SaaS apps', ['Okta'], 'PR.AA', 'saas'],
    ['inactive_users_deprovisioned', 'Inactive user accounts are deprovisioned', ['Okta', 'Google Workspace'], 'PR.AA', 'user'],
    ['offboarded_users_removed', 'Offboarded employees have no active accounts', ['Google Workspace', 'Okta'], 'PR.AA', 'user'],
    ['admin_accounts_limited', 'Admin accounts are limited to named owners', ['Google Workspace'], 'PR.AA', 'user'],
    ['google_workspace_2sv_enforced', '2-step verification is enforced in Google Workspace', ['Google Workspace'], 'PR.AA', 'user'],
    ['password_policy_strength', 'Password policy meets minimum length', ['Okta'], 'PR.AA', 'saas'],
    ['github_mfa_required', 'GitHub organization requires two-factor authentication', ['GitHub'], 'PR.AA', 'user'],
    ['github_branch_protection', 'Default branches are protected', ['GitHub'], 'PR.PS', 'repo'],
    ['github_code_review_required', 'Pull requests need an approving review', ['GitHub'], 'PR.PS', 'repo'],
    ['github_secret_scanning_enabled', 'Secret scanning is enabled on repositories', ['GitHub'], 'PR.PS', 'repo'],
    ['github_dependency_alerts_enabled', 'Dependency alerts are enabled', ['GitHub'], 'ID.RA', 'repo'],
    ['github_private_code_not_public', 'Private code is not in public repositories', ['GitHub'], 'PR.DS', 'repo'],
    ['security_training_completed', 'Employees completed security awareness training', ['KnowBe4'], 'PR.AT', 'user'],
    ['phishing_simulation_participation', 'Employees took part in phishing simulations', ['KnowBe4'], 'PR.AT', 'user'],
    ['background_checks_completed', 'Background checks are completed for new hires', ['BambooHR'], 'GV.RR', 'user'],
    ['policies_accepted_by_employees', 'Employees accepted the required policies', ['BambooHR'], 'GV.PO', 'user'],
    ['laptops_disk_encrypted', 'Laptops have full-disk encryption', ['Jamf'], 'PR.DS', 'endpoint'],
    ['laptops_screen_lock', 'Laptops lock the screen after inactivity', ['Jamf'], 'PR.AA', 'endpoint'],
    ['laptops_os_up_to_date', 'Laptop operating systems are up to date', ['Jamf'], 'PR.PS', 'endpoint'],
    ['edr_installed_on_laptops', 'EDR agent runs on every laptop', ['CrowdStrike'], 'DE.CM', 'endpoint'],
    ['password_manager_in_use', 'Employees use the company password manager', ['1Password'], 'PR.AA', 'user'],
    ['on_call_schedule_defined', 'An on-call schedule covers production services', ['PagerDuty'], 'RS.MA', 'saas'],
    ['incident_tickets_within_sla', 'Security incidents are resolved within SLA', ['Jira'], 'RS.MA', 'saas'],
    ['slack_sso_enforced', 'Slack requires SSO sign-in', ['Slack', 'Okta'], 'PR.AA', 'saas'],
    ['error_rate_monitors_configured', 'Error-rate monitors exist for production services', ['Datadog'], 'DE.CM', 'saas'],
    ['log_retention_one_year', 'Logs are retained for at least a year', ['Datadog'], 'PR.PS', 'saas'],
    ['waf_enabled_on_public_zones', 'Web application firewall protects public zones', ['Cloudflare'], 'PR.IR', 'saas'],
    ['tls_minimum_version', 'Public endpoints require TLS 1.2 or newer', ['Cloudflare'], 'PR.DS', 'saas'],
    ['warehouse_network_policy', 'The data warehouse restricts access by network policy', ['Snowflake'], 'PR.AA', 'saas'],
    ['critical_vulnerabilities_within_sla', 'Critical vulnerabilities are fixed within SLA', ['GitHub'], 'ID.RA', 'repo'],
    ['production_changes_have_tickets', 'Production changes reference an approved ticket', ['Jira', 'GitHub'], 'PR.PS', 'repo'],
  ]),
  ...cloud([
    ['aws_root_account_mfa', 'AWS root account has MFA', ['AWS'], 'PR.AA', 'aws'],
    ['aws_iam_users_mfa', 'IAM users with console access have MFA', ['AWS'], 'PR.AA', 'aws'],
    ['aws_iam_access_keys_rotated', 'IAM access keys are rotated every 90 days', ['AWS'], 'PR.AA', 'aws'],
    ['aws_s3_buckets_encrypted', 'S3 buckets have default encryption', ['AWS'], 'PR.DS', 'aws'],
    ['aws_s3_block_public_access', 'S3 buckets block public access', ['AWS'], 'PR.DS', 'aws'],
    ['aws_rds_encrypted', 'RDS instances are encrypted at rest', ['AWS'], 'PR.DS', 'aws'],
    ['aws_rds_backups_enabled', 'RDS automated backups are enabled', ['AWS'], 'PR.DS', 'aws'],
    ['aws_rds_multi_az', 'Production RDS instances are Multi-AZ', ['AWS'], 'PR.IR', 'aws'],
    ['aws_cloudtrail_enabled', 'CloudTrail is enabled in all regions', ['AWS'], 'DE.CM', 'aws'],
    ['aws_guardduty_enabled', 'GuardDuty is enabled', ['AWS'], 'DE.CM', 'aws'],
    ['aws_security_groups_no_open_ssh', 'Security groups do not allow SSH from anywhere', ['AWS'], 'PR.IR', 'aws'],
    ['aws_ebs_volumes_encrypted', 'EBS volumes are encrypted', ['AWS'], 'PR.DS', 'aws'],
    ['aws_vpc_flow_logs_enabled', 'VPC flow logs are enabled', ['AWS'], 'DE.CM', 'aws'],
    ['aws_kms_key_rotation', 'KMS customer-managed keys rotate yearly', ['AWS'], 'PR.DS', 'aws'],
    ['aws_config_recorder_enabled', 'AWS Config recorder is on', ['AWS'], 'ID.AM', 'aws'],
    ['aws_load_balancers_tls_only', 'Load balancers only serve TLS', ['AWS'], 'PR.DS', 'aws'],
    ['gcp_storage_uniform_access', 'Cloud Storage buckets use uniform access', ['Google Cloud'], 'PR.DS', 'gcp'],
    ['gcp_sql_backups_enabled', 'Cloud SQL backups are enabled', ['Google Cloud'], 'PR.DS', 'gcp'],
    ['gcp_audit_logs_enabled', 'Audit logs are enabled for all services', ['Google Cloud'], 'DE.CM', 'gcp'],
    ['gcp_service_account_keys_rotated', 'Service account keys are rotated', ['Google Cloud'], 'PR.AA', 'gcp'],
    ['gcp_firewall_no_open_rdp', 'Firewall rules block RDP from the internet', ['Google Cloud'], 'PR.IR', 'gcp'],
    ['azure_storage_secure_transfer', 'Storage accounts require secure transfer', ['Microsoft Azure'], 'PR.DS', 'azure'],
    ['azure_sql_auditing_enabled', 'SQL server auditing is enabled', ['Microsoft Azure'], 'DE.CM', 'azure'],
    ['azure_defender_enabled', 'Defender for Cloud is enabled', ['Microsoft Azure'], 'DE.CM', 'azure'],
    ['azure_key_vault_soft_delete', 'Key vaults have soft delete enabled', ['Microsoft Azure'], 'PR.DS', 'azure'],
    ['k8s_pods_not_privileged', 'Pods do not run privileged containers', ['Kubernetes'], 'PR.PS', 'k8s'],
    ['k8s_no_cluster_admin_users', 'No user holds a cluster-admin binding', ['Kubernetes'], 'PR.AA', 'k8s'],
    ['k8s_images_from_trusted_registry', 'Images come from a trusted registry', ['Kubernetes'], 'GV.SC', 'k8s'],
  ]),
];

/** suffixes for test variants beyond the catalogue (slug part, name part) */
export const TEST_VARIANTS: readonly (readonly [string, string])[] = [
  ['prod', 'production'],
  ['staging', 'staging'],
  ['eu', 'EU tenant'],
  ['us', 'US tenant'],
  ['apac', 'APAC tenant'],
  ['legacy', 'legacy estate'],
  ['data', 'data platform'],
  ['payments', 'payments'],
];

/** qualifiers for control, policy and evidence variants beyond the catalogue */
export const VARIANT_QUALIFIERS = [
  'Production',
  'Corporate IT',
  'EU region',
  'US region',
  'Payments',
  'Mobile',
  'Data Platform',
  'Customer Support',
  'APAC region',
  'Subsidiaries',
  'Contractors',
  'Legacy systems',
];

export const POLICY_GAPS = [
  'Does not name an owner for exceptions',
  'Review frequency is not stated',
  'No reference to third-party access',
  'Missing data retention periods',
  'Encryption requirements lack key lengths',
  'No escalation path for violations',
  'Scope excludes contractors',
  'Approval workflow is not described',
];

export const EVIDENCE_GAPS = [
  'Screenshot does not show the date',
  'Population is incomplete for the period',
  'Missing approver sign-off',
  'Export does not cover all production accounts',
  'Sample selection is not documented',
  'Evidence predates the audit window',
  'File does not show the system name',
];

export const NOT_RELEVANT_REASONS = [
  'No physical office: fully remote company',
  'Service not offered in this region',
  'Covered by the parent company program',
  'No cardholder data processed',
  'Replaced by a newer document',
];

export const OUT_OF_SCOPE_REASONS = [
  'No on-premises data center',
  'Handled by the cloud provider under the shared responsibility model',
  'Not applicable to our SaaS-only footprint',
  'Business unit divested',
  'No hardware manufactured or shipped',
];

export const IGNORE_REASONS = [
  'Accepted risk: compensating control in place',
  'Resource scheduled for decommissioning',
  'False positive confirmed by security team',
  'Sandbox account outside the audit scope',
];

export const REVISION_REASONS = [
  'Wrong period uploaded',
  'Screenshot is unreadable',
  'Export is missing the approver column',
  'Please include all production accounts',
];
