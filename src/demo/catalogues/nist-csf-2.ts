// NIST Cybersecurity Framework 2.0 (a U.S. government work, free to reuse): its six functions,
// 22 categories and 106 subcategory codes. Requirement and control names are short paraphrases
// written for this project, not NIST's text. Categories become control domains; subcategories
// become requirements, and each subcategory also seeds one control template.

export type FunctionGrouping = 'govern' | 'identify' | 'protect' | 'detect' | 'respond' | 'recover';

export interface CsfCategory {
  code: string;
  /** the control domain name (no commas: domain filters are comma-separated lists) */
  domain: string;
  functionGrouping: FunctionGrouping;
}

export interface CsfSubcategory {
  code: string;
  category: string;
  /** requirement name */
  requirement: string;
  /** the internal control that answers it */
  control: string;
}

const FUNCTIONS: Record<string, FunctionGrouping> = {
  GV: 'govern',
  ID: 'identify',
  PR: 'protect',
  DE: 'detect',
  RS: 'respond',
  RC: 'recover',
};

export const CSF_FRAMEWORK_NAME = 'NIST CSF 2.0';

export const CSF_CATEGORIES: readonly CsfCategory[] = (
  [
    ['GV.OC', 'Organizational Context'],
    ['GV.RM', 'Risk Management Strategy'],
    ['GV.RR', 'Roles and Responsibilities'],
    ['GV.PO', 'Security Policy'],
    ['GV.OV', 'Oversight'],
    ['GV.SC', 'Supply Chain Risk Management'],
    ['ID.AM', 'Asset Management'],
    ['ID.RA', 'Risk Assessment'],
    ['ID.IM', 'Improvement'],
    ['PR.AA', 'Identity and Access Control'],
    ['PR.AT', 'Awareness and Training'],
    ['PR.DS', 'Data Security'],
    ['PR.PS', 'Platform Security'],
    ['PR.IR', 'Infrastructure Resilience'],
    ['DE.CM', 'Continuous Monitoring'],
    ['DE.AE', 'Adverse Event Analysis'],
    ['RS.MA', 'Incident Management'],
    ['RS.AN', 'Incident Analysis'],
    ['RS.CO', 'Incident Communication'],
    ['RS.MI', 'Incident Mitigation'],
    ['RC.RP', 'Recovery Plan Execution'],
    ['RC.CO', 'Recovery Communication'],
  ] as const
).map(([code, domain]) => ({ code, domain, functionGrouping: FUNCTIONS[code.slice(0, 2)] }));

export const CSF_SUBCATEGORIES: readonly CsfSubcategory[] = (
  [
    ['GV.OC-01', 'Mission informs cybersecurity risk decisions', 'Security objectives aligned to company mission'],
    ['GV.OC-02', 'Stakeholder expectations are understood', 'Stakeholder security expectations register'],
    ['GV.OC-03', 'Legal and regulatory obligations are managed', 'Regulatory obligations inventory'],
    ['GV.OC-04', 'Critical objectives and services are known', 'Critical services catalogue'],
    ['GV.OC-05', 'Dependencies on the organization are known', 'Business dependency mapping'],
    ['GV.RM-01', 'Risk objectives are agreed', 'Risk management objectives approved by leadership'],
    ['GV.RM-02', 'Risk appetite and tolerance are set', 'Documented risk appetite statement'],
    ['GV.RM-03', 'Cyber risk is part of enterprise risk', 'Cyber risk in enterprise risk register'],
    ['GV.RM-04', 'Risk response direction is set', 'Risk treatment decision process'],
    ['GV.RM-05', 'Risk communication lines exist', 'Risk reporting lines to leadership'],
    ['GV.RM-06', 'A standard risk method is used', 'Standard risk scoring methodology'],
    ['GV.RM-07', 'Opportunities are considered in risk discussions', 'Positive risk review in planning'],
    ['GV.RR-01', 'Leadership is accountable for cyber risk', 'Executive security accountability'],
    ['GV.RR-02', 'Security roles are assigned and communicated', 'Security roles and responsibilities matrix'],
    ['GV.RR-03', 'Security resources match strategy', 'Annual security budget review'],
    ['GV.RR-04', 'Security is part of HR practices', 'Security duties in HR processes'],
    ['GV.PO-01', 'Security policy is set and enforced', 'Information security policy approved and communicated'],
    ['GV.PO-02', 'Policy is reviewed and updated', 'Annual policy review cycle'],
    ['GV.OV-01', 'Strategy outcomes are reviewed', 'Security strategy review by leadership'],
    ['GV.OV-02', 'Strategy is adjusted to cover needs', 'Security program coverage assessment'],
    ['GV.OV-03', 'Risk performance is measured', 'Security metrics reporting'],
    ['GV.SC-01', 'A supplier risk program exists', 'Vendor risk management program'],
    ['GV.SC-02', 'Supplier security roles are set', 'Vendor security ownership'],
    ['GV.SC-03', 'Supplier risk is part of enterprise risk', 'Vendor risk in enterprise risk register'],
    ['GV.SC-04', 'Suppliers are known and ranked', 'Vendor inventory with criticality tiers'],
    ['GV.SC-05', 'Supplier contracts include security terms', 'Security clauses in vendor contracts'],
    ['GV.SC-06', 'Suppliers are vetted before onboarding', 'Vendor due diligence before onboarding'],
    ['GV.SC-07', 'Supplier risks are monitored', 'Periodic vendor security reviews'],
    ['GV.SC-08', 'Suppliers take part in incident plans', 'Vendor incident notification terms'],
    ['GV.SC-09', 'Supply chain security is in the product life cycle', 'Third-party component governance'],
    ['GV.SC-10', 'Supplier offboarding is planned', 'Vendor offboarding checklist'],
    ['ID.AM-01', 'Hardware inventory is kept', 'Endpoint and hardware inventory'],
    ['ID.AM-02', 'Software and services inventory is kept', 'Software and SaaS inventory'],
    ['ID.AM-03', 'Network and data flows are documented', 'Network and data flow diagrams'],
    ['ID.AM-04', 'Supplier services are inventoried', 'Inventory of supplier-provided services'],
    ['ID.AM-05', 'Assets are prioritized', 'Asset criticality classification'],
    ['ID.AM-07', 'Data and metadata are inventoried', 'Data inventory and classification'],
    ['ID.AM-08', 'Assets are managed through their life cycle', 'Asset life cycle management'],
    ['ID.RA-01', 'Asset vulnerabilities are found and recorded', 'Vulnerability scanning program'],
    ['ID.RA-02', 'Threat intelligence is received', 'Threat intelligence subscriptions'],
    ['ID.RA-03', 'Threats are identified and recorded', 'Threat modelling for critical systems'],
    ['ID.RA-04', 'Likelihood and impact are assessed', 'Risk likelihood and impact scoring'],
    ['ID.RA-05', 'Risks are prioritized', 'Prioritized risk register'],
    ['ID.RA-06', 'Risk responses are chosen and tracked', 'Risk treatment plan tracking'],
    ['ID.RA-07', 'Changes and exceptions are risk-assessed', 'Security exception process'],
    ['ID.RA-08', 'Vulnerability disclosures are handled', 'Vulnerability disclosure program'],
    ['ID.RA-09', 'Hardware and software are checked before use', 'Software integrity verification'],
    ['ID.RA-10', 'Critical suppliers are assessed before purchase', 'Pre-purchase supplier assessment'],
    ['ID.IM-01', 'Evaluations find improvements', 'Internal security assessments'],
    ['ID.IM-02', 'Tests and exercises find improvements', 'Penetration tests and exercises'],
    ['ID.IM-03', 'Operations find improvements', 'Operational lessons-learned reviews'],
    ['ID.IM-04', 'Incident plans are maintained', 'Incident response plan maintenance'],
    ['PR.AA-01', 'Identities and credentials are managed', 'Identity lifecycle management'],
    ['PR.AA-02', 'Identities are proofed and bound', 'Identity verification at onboarding'],
    ['PR.AA-03', 'Users and services are authenticated', 'Multi-factor authentication enforcement'],
    ['PR.AA-04', 'Identity assertions are protected', 'Single sign-on with signed assertions'],
    ['PR.AA-05', 'Access follows least privilege', 'Quarterly access reviews'],
    ['PR.AA-06', 'Physical access is managed', 'Office physical access control'],
    ['PR.AT-01', 'Staff receive security awareness training', 'Security awareness training'],
    ['PR.AT-02', 'Specialized roles receive targeted training', 'Role-based security training'],
    ['PR.DS-01', 'Data at rest is protected', 'Encryption of data at rest'],
    ['PR.DS-02', 'Data in transit is protected', 'Encryption of data in transit'],
    ['PR.DS-10', 'Data in use is protected', 'Data access logging and masking'],
    ['PR.DS-11', 'Backups are made and tested', 'Backup and restore testing'],
    ['PR.PS-01', 'Configuration management is practiced', 'Hardened configuration baselines'],
    ['PR.PS-02', 'Software is maintained and patched', 'Patch management'],
    ['PR.PS-03', 'Hardware is maintained and replaced', 'Hardware refresh and maintenance'],
    ['PR.PS-04', 'Logs are generated for monitoring', 'Centralized logging'],
    ['PR.PS-05', 'Unauthorized software is prevented', 'Application allow-listing on endpoints'],
    ['PR.PS-06', 'Secure development is practiced', 'Secure software development lifecycle'],
    ['PR.IR-01', 'Networks are protected from unauthorized use', 'Network segmentation and firewalls'],
    ['PR.IR-02', 'Technology is protected from environmental threats', 'Data center environmental safeguards'],
    ['PR.IR-03', 'Resilience mechanisms are in place', 'High availability architecture'],
    ['PR.IR-04', 'Capacity is sufficient', 'Capacity planning and autoscaling'],
    ['DE.CM-01', 'Networks are monitored', 'Network intrusion detection'],
    ['DE.CM-02', 'The physical environment is monitored', 'Physical security monitoring'],
    ['DE.CM-03', 'Personnel activity is monitored', 'User activity monitoring'],
    ['DE.CM-06', 'Supplier activity is monitored', 'Third-party access monitoring'],
    ['DE.CM-09', 'Computing hardware and software are monitored', 'Endpoint detection and response'],
    ['DE.AE-02', 'Adverse events are analysed', 'Security alert triage'],
    ['DE.AE-03', 'Information is correlated across sources', 'SIEM correlation rules'],
    ['DE.AE-04', 'Event impact is understood', 'Alert impact assessment'],
    ['DE.AE-06', 'Event information reaches the right people', 'Security alert routing'],
    ['DE.AE-07', 'Threat intelligence feeds analysis', 'Threat intelligence enrichment'],
    ['DE.AE-08', 'Incidents are declared on defined criteria', 'Incident declaration criteria'],
    ['RS.MA-01', 'The incident plan is executed with parties', 'Incident response plan execution'],
    ['RS.MA-02', 'Incident reports are triaged and validated', 'Incident triage procedure'],
    ['RS.MA-03', 'Incidents are categorized and prioritized', 'Incident severity classification'],
    ['RS.MA-04', 'Incidents are escalated as needed', 'Incident escalation paths'],
    ['RS.MA-05', 'Recovery start criteria are applied', 'Recovery initiation criteria'],
    ['RS.AN-03', 'Incident root cause is analysed', 'Post-incident root cause analysis'],
    ['RS.AN-06', 'Investigation actions are recorded', 'Incident investigation log'],
    ['RS.AN-07', 'Incident data is collected and preserved', 'Forensic evidence preservation'],
    ['RS.AN-08', 'Incident magnitude is estimated', 'Incident impact estimation'],
    ['RS.CO-02', 'Stakeholders are notified of incidents', 'Incident stakeholder notification'],
    ['RS.CO-03', 'Incident information is shared as agreed', 'Regulator and customer breach notification'],
    ['RS.MI-01', 'Incidents are contained', 'Incident containment playbooks'],
    ['RS.MI-02', 'Incidents are eradicated', 'Threat eradication procedures'],
    ['RC.RP-01', 'The recovery plan is executed', 'Disaster recovery plan'],
    ['RC.RP-02', 'Recovery actions are chosen and performed', 'Recovery runbooks'],
    ['RC.RP-03', 'Restored assets are verified', 'Backup integrity verification before restore'],
    ['RC.RP-04', 'Post-incident operating norms are set', 'Post-incident operating standards'],
    ['RC.RP-05', 'Restored systems are confirmed working', 'Service restoration sign-off'],
    ['RC.RP-06', 'Recovery end is declared and documented', 'Recovery closure report'],
    ['RC.CO-03', 'Recovery progress is communicated', 'Recovery status communication'],
    ['RC.CO-04', 'Public recovery updates are shared', 'Public status page updates'],
  ] as const
).map(([code, requirement, control]) => ({ code, category: code.slice(0, 5), requirement, control }));
