// A SOC 2-style framework: requirement codes follow the AICPA Trust Services Criteria numbering
// (common criteria CC1-CC9, availability A1, confidentiality C1); the names are short summaries
// written for this project, not the AICPA's wording.

export const SOC2_FRAMEWORK_NAME = 'SOC 2';
export const SOC2_TSC_SELECTIONS = ['Security', 'Availability', 'Confidentiality'];

export const SOC2_REQUIREMENTS: readonly { code: string; name: string }[] = (
  [
    ['CC1.1', 'Commitment to integrity and ethical values'],
    ['CC1.2', 'Board independence and oversight of controls'],
    ['CC1.3', 'Structures, reporting lines and authority'],
    ['CC1.4', 'Attracting and retaining competent people'],
    ['CC1.5', 'Holding people accountable for control duties'],
    ['CC2.1', 'Quality information supports internal control'],
    ['CC2.2', 'Internal communication of control information'],
    ['CC2.3', 'Communication with external parties'],
    ['CC3.1', 'Objectives are specified clearly enough to assess risk'],
    ['CC3.2', 'Risks to objectives are identified and analysed'],
    ['CC3.3', 'Fraud risk is considered'],
    ['CC3.4', 'Significant changes are identified and assessed'],
    ['CC4.1', 'Ongoing and separate evaluations of controls'],
    ['CC4.2', 'Control deficiencies are communicated and fixed'],
    ['CC5.1', 'Control activities mitigate risks'],
    ['CC5.2', 'General controls over technology'],
    ['CC5.3', 'Policies and procedures put controls in place'],
    ['CC6.1', 'Logical access security over protected assets'],
    ['CC6.2', 'User registration and authorization'],
    ['CC6.3', 'Role-based access changes and removal'],
    ['CC6.4', 'Physical access to facilities is restricted'],
    ['CC6.5', 'Secure disposal of assets and data'],
    ['CC6.6', 'Protection against threats from outside the boundary'],
    ['CC6.7', 'Restricting and protecting data transmission'],
    ['CC6.8', 'Preventing and detecting malicious software'],
    ['CC7.1', 'Detecting configuration changes and vulnerabilities'],
    ['CC7.2', 'Monitoring systems for anomalies'],
    ['CC7.3', 'Evaluating security events'],
    ['CC7.4', 'Responding to security incidents'],
    ['CC7.5', 'Recovering from security incidents'],
    ['CC8.1', 'Change management over infrastructure and software'],
    ['CC9.1', 'Mitigating business disruption risk'],
    ['CC9.2', 'Managing vendor and business partner risk'],
    ['A1.1', 'Capacity is managed to meet availability commitments'],
    ['A1.2', 'Environmental protections backups and recovery infrastructure'],
    ['A1.3', 'Recovery plan testing'],
    ['C1.1', 'Confidential information is identified and protected'],
    ['C1.2', 'Confidential information is disposed of on schedule'],
  ] as const
).map(([code, name]) => ({ code, name }));
