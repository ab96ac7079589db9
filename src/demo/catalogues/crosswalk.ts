// Which SOC 2 and ISO 27001-style requirements each NIST CSF category's controls also satisfy.
// Written for this project as a plausible crosswalk (not an official mapping). Every SOC 2 and
// ISO requirement appears at least once, so each framework's requirements are all covered.

export const CROSSWALK: Readonly<Record<string, { soc2: readonly string[]; iso: readonly string[] }>> = {
  'GV.OC': { soc2: ['CC1.1', 'CC2.3', 'CC3.1'], iso: ['A.5.31', 'A.5.5', 'A.5.6', 'A.5.32'] },
  'GV.RM': { soc2: ['CC3.1', 'CC3.2', 'CC9.1'], iso: ['A.5.4'] },
  'GV.RR': { soc2: ['CC1.3', 'CC1.4', 'CC1.5'], iso: ['A.5.2', 'A.5.3', 'A.5.4', 'A.6.1', 'A.6.2'] },
  'GV.PO': { soc2: ['CC5.3', 'CC1.1'], iso: ['A.5.1', 'A.5.36', 'A.5.37'] },
  'GV.OV': { soc2: ['CC1.2', 'CC2.1', 'CC4.1', 'CC4.2'], iso: ['A.5.35', 'A.5.36', 'A.8.34'] },
  'GV.SC': { soc2: ['CC9.2', 'CC3.4'], iso: ['A.5.19', 'A.5.20', 'A.5.21', 'A.5.22', 'A.5.23', 'A.8.30'] },
  'ID.AM': { soc2: ['CC6.1', 'CC3.2'], iso: ['A.5.9', 'A.5.10', 'A.5.11', 'A.5.12', 'A.5.13', 'A.7.9', 'A.8.1'] },
  'ID.RA': { soc2: ['CC3.2', 'CC3.3', 'CC7.1'], iso: ['A.5.7', 'A.8.8'] },
  'ID.IM': { soc2: ['CC4.1', 'CC4.2', 'CC5.1'], iso: ['A.5.27', 'A.5.35'] },
  'PR.AA': {
    soc2: ['CC6.1', 'CC6.2', 'CC6.3', 'CC6.4', 'CC6.5'],
    iso: ['A.5.15', 'A.5.16', 'A.5.17', 'A.5.18', 'A.8.2', 'A.8.3', 'A.8.4', 'A.8.5', 'A.7.1', 'A.7.2', 'A.7.3', 'A.7.6'],
  },
  'PR.AT': { soc2: ['CC1.4', 'CC2.2'], iso: ['A.6.3', 'A.6.4', 'A.6.6', 'A.6.5'] },
  'PR.DS': {
    soc2: ['CC6.1', 'CC6.7', 'C1.1', 'C1.2'],
    iso: ['A.5.14', 'A.5.33', 'A.5.34', 'A.8.10', 'A.8.11', 'A.8.12', 'A.8.24', 'A.8.33', 'A.7.10', 'A.7.14'],
  },
  'PR.PS': {
    soc2: ['CC6.8', 'CC7.1', 'CC8.1', 'CC5.2'],
    iso: ['A.8.9', 'A.8.19', 'A.8.25', 'A.8.26', 'A.8.27', 'A.8.28', 'A.8.29', 'A.8.31', 'A.8.32', 'A.8.18', 'A.8.7', 'A.7.13', 'A.5.8'],
  },
  'PR.IR': {
    soc2: ['A1.1', 'A1.2', 'CC6.6'],
    iso: ['A.8.6', 'A.8.14', 'A.8.20', 'A.8.21', 'A.8.22', 'A.8.23', 'A.7.5', 'A.7.8', 'A.7.11', 'A.7.12', 'A.6.7', 'A.7.7'],
  },
  'DE.CM': { soc2: ['CC7.1', 'CC7.2'], iso: ['A.8.15', 'A.8.16', 'A.8.17', 'A.7.4'] },
  'DE.AE': { soc2: ['CC7.2', 'CC7.3'], iso: ['A.5.25', 'A.6.8', 'A.8.15'] },
  'RS.MA': { soc2: ['CC7.3', 'CC7.4'], iso: ['A.5.24', 'A.5.26'] },
  'RS.AN': { soc2: ['CC7.4'], iso: ['A.5.28', 'A.5.27'] },
  'RS.CO': { soc2: ['CC2.3', 'CC7.4'], iso: ['A.5.5', 'A.5.26'] },
  'RS.MI': { soc2: ['CC7.4'], iso: ['A.5.26'] },
  'RC.RP': { soc2: ['CC7.5', 'A1.3', 'A1.2'], iso: ['A.5.29', 'A.5.30', 'A.8.13'] },
  'RC.CO': { soc2: ['CC7.5', 'CC2.2'], iso: ['A.5.29'] },
};
