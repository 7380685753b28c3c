/**
 * The optional Micrometer binding of zklock's lock metrics: {@link
 * dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics}. Only this package needs {@code micrometer-core} on the
 * class path (an optional dependency of {@code zklock-recipes}).
 *
 * <p><b>Null policy</b> and <b>thread safety</b> as in {@code dev.zklock.recipes.locks}: no {@code null} arguments,
 * every type safe for use by multiple threads.
 */
package dev.zklock.recipes.locks.micrometer;
