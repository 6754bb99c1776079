// The contract's clusters.* and slurm.* methods, over the ClusterService and the SlurmFollower.
import type { Handlers } from '../../contract'
import type { ClusterService, SlurmFollower } from '../slurm'

type SlurmHandlers = Pick<Handlers, 'clusters.list' | 'clusters.save' | 'clusters.delete' | 'clusters.check' | 'clusters.trust' | 'slurm.submit' | 'slurm.jobs' | 'slurm.cancel'>

export function slurmHandlers(clusters: ClusterService, follower: SlurmFollower): SlurmHandlers {
  return {
    'clusters.list': async () => clusters.list(),
    'clusters.save': async ({ replacing, cluster }) => clusters.save(cluster, replacing),
    'clusters.delete': async ({ name }) => ({ deleted: await clusters.delete(name) }),
    'clusters.check': async ({ name }) => clusters.check(name),
    'clusters.trust': async ({ name, fingerprint }) => clusters.trust(name, fingerprint),
    'slurm.submit': async (req) => follower.submit(req),
    'slurm.jobs': async ({ experimentId }) => follower.jobs(experimentId),
    'slurm.cancel': async ({ experimentId }) => follower.cancel(experimentId),
  }
}
