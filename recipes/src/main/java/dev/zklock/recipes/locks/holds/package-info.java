/**
 * The ownership mechanics behind the locks of {@code dev.zklock.recipes.locks}: internal to zklock, not API. Per-thread
 * hold counts ({@link dev.zklock.recipes.locks.holds.HoldCounts}), the JDK {@code Lock} adapter that a lock's
 * {@code asLock()} returns ({@link dev.zklock.recipes.locks.holds.JdkLock}), and the two ways a {@code ZkMultiLock}
 * takes its members as one ({@link dev.zklock.recipes.locks.holds.MultiLockMembers}: over paths in one transaction,
 * {@link dev.zklock.recipes.locks.holds.MultiQueue}, or over arbitrary locks one after another,
 * {@link dev.zklock.recipes.locks.holds.MemberLocks}). Its types are public only so that the API package can use them;
 * they are left out of the javadoc and may change or go in any release without notice.
 *
 * <p>Every type is safe for use by multiple threads and says what each operation costs in ZooKeeper round trips (the
 * hold counts and the adapter make none of their own). Null policy as in {@code dev.zklock.recipes.locks}.
 */
package dev.zklock.recipes.locks.holds;
