/**
 * The built-in lock drivers of zklock, behind {@link dev.zklock.recipes.locks.LockDriver#exclusive()},
 * {@link dev.zklock.recipes.locks.LockDriver#read()} and {@link dev.zklock.recipes.locks.LockDriver#write()}: internal
 * to zklock, not API. Its types are public only so that the API package {@code dev.zklock.recipes.locks} can hand them
 * out; they are left out of the javadoc and may change or go in any release without notice. Reach them through the
 * factories of {@code LockDriver}.
 *
 * <p>Each driver is a stateless singleton, safe for use by multiple threads, and pure: deciding costs no ZooKeeper call.
 * Null policy as in {@code dev.zklock.recipes.locks}.
 */
package dev.zklock.recipes.locks.drivers;
