package dev.zklock.spring;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.ZkReentrantLock;

/**
 * A hold that a {@link ZkReentrantLock} keeps for its owning thread (a node of its own, or a cohort's pass), as a
 * {@link ThreadHold.Grant}. Made by the owning thread right after its grant, which names the node; its state, token and
 * release are the owning thread's to read and call, its expiry the registry timer's.
 */
final class OwnedGrant implements ThreadHold.Grant {
    private final ZkReentrantLock lock;
    private final String node;
    private final boolean localHandOff;

    OwnedGrant(ZkReentrantLock lock, boolean localHandOff) {
        this.lock = lock;
        this.node = lock.getLockPath();
        this.localHandOff = localHandOff;
    }

    @Override
    public LockState state() {
        return lock.holdState().orElse(LockState.LOST);
    }

    @Override
    public long token() {
        return lock.fencingToken();
    }

    @Override
    public void release() {
        lock.release();
    }

    @Override
    public void expire() {
        lock.expire(node);
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public boolean passesNodeOn() {
        return localHandOff;
    }
}
