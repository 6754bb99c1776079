import { describe, expect, it } from 'vitest'
import { arrayIndices, parseSacct, parseScontrol, parseSqueue } from '../../src-main/core/slurm'

// What squeue, sacct and scontrol print for a job array (Slurm 22.05's formats), read back per task.
describe('Slurm task states', () => {
  it('expands array ids, throttles and lists included', () => {
    expect(arrayIndices('12_3', '12')).toEqual([3])
    expect(arrayIndices('12_[0-3%2]', '12')).toEqual([0, 1, 2, 3])
    expect(arrayIndices('12_[1,4-5]', '12')).toEqual([1, 4, 5])
    expect(arrayIndices('13_1', '12')).toEqual([])
    expect(arrayIndices('120_1', '12')).toEqual([])
  })

  it('reads squeue, sacct and scontrol lines', () => {
    expect(parseSqueue('12_2|PENDING|JobArrayTaskLimit\n12_0|RUNNING|None\n', '12')).toEqual(
      new Map([
        [2, { state: 'PENDING', reason: 'JobArrayTaskLimit', exitCode: null }],
        [0, { state: 'RUNNING', reason: null, exitCode: null }],
      ]),
    )
    const sa = parseSacct('12_0|COMPLETED|None|0:0\n12_1|FAILED|NonZeroExitCode|1:0\n12_[2-3]|CANCELLED by 0|None|0:0\n', '12')
    expect(sa.get(1)).toEqual({ state: 'FAILED', reason: 'NonZeroExitCode', exitCode: '1:0' })
    expect(sa.get(3)).toEqual({ state: 'CANCELLED', reason: 'by 0', exitCode: '0:0' })
    const sc = parseScontrol(
      'JobId=14 ArrayJobId=12 ArrayTaskId=1 JobName=x JobState=TIMEOUT Reason=TimeLimit Dependency=(null) ExitCode=0:15\n' +
        'JobId=12 ArrayJobId=12 ArrayTaskId=2-7 ArrayTaskThrottle=2 JobState=CANCELLED Reason=None ExitCode=0:0\n',
      '12',
    )
    expect(sc.get(1)).toEqual({ state: 'TIMEOUT', reason: 'TimeLimit', exitCode: '0:15' })
    expect([...sc.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6, 7])
  })
})
