/**
 * Leader election on the lock engine of {@code dev.zklock.recipes.locks}, beside Apache Curator on the same
 * {@code CuratorFramework}.
 *
 * <p>{@link dev.zklock.recipes.leader.ZkLeaderLatch} is a participant on the layout of Curator's {@code LeaderLatch}, so
 * zklock and Curator participants on one path elect one leader among them; it takes Curator's
 * {@code LeaderLatchListener} as it is, and answers Curator's {@code Participant}. Each term has an epoch, the fencing
 * token of its hold, that grows with every term; a leader steps down as soon as its connection is suspended.
 * {@link dev.zklock.recipes.leader.ZkLeaderSelector} runs Curator's {@code LeaderSelectorListener} while it leads, on
 * the layout of Curator's {@code LeaderSelector} (its mutex), so zklock and Curator selectors on one path take turns.
 * Both say who leads and in which term, {@link dev.zklock.recipes.leader.Leader}, in two round trips; a latch hands
 * leadership over on one delete ({@code yield}, {@code close}, or a shutdown hook).
 * {@link dev.zklock.recipes.leader.ZkLeaderObserver} watches either kind of election, participant or not, and tells each
 * {@link dev.zklock.recipes.leader.LeaderChanged} in order on a thread of its own.
 *
 * <p><b>Null policy.</b> No method of this package accepts {@code null} for a parameter, and a {@code null} argument is
 * rejected with a {@link java.lang.NullPointerException} that names the parameter. No method returns {@code null}.
 *
 * <p><b>Thread safety.</b> Every type of this package is safe for use by multiple threads.
 *
 * <p><b>Exceptions.</b> Bad arguments and states get {@link java.lang.NullPointerException},
 * {@link java.lang.IllegalArgumentException} or {@link java.lang.IllegalStateException} naming the offending value and
 * the election's path, before any ZooKeeper call; methods that talk to ZooKeeper throw
 * {@link java.lang.InterruptedException} when interrupted and {@link dev.zklock.recipes.locks.ZkLockException} when
 * ZooKeeper refuses a request.
 */
package dev.zklock.recipes.leader;
