package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ZooKeeperExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;

/**
 * {@link ZkLockMetricsAutoConfiguration} with Spring Boot's own metrics auto-configuration, which binds every
 * {@link MeterBinder} bean to its registry, against a real server in both {@link ClientMode}s.
 */
@Timeout(60)
final class ZkLockMetricsAutoConfigurationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final AutoConfigurations BOOT_METRICS = AutoConfigurations.of(
            MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class);

    /**
     * With zklock's own client the meters used to be missing: the nested configuration's single-candidate condition on
     * the client was decided before the outer class defined the client.
     */
    @ParameterizedTest
    @EnumSource(ClientMode.class)
    void meters_inEachClientMode_areBoundByBootAndCountEachAcquisition(ClientMode mode) {
        mode.runner(zk).withConfiguration(BOOT_METRICS).run(context -> {
            assertThat(context).hasSingleBean(ZkLockMicrometerBinding.class);
            assertThat(context.getBean(MeterBinder.class)).isInstanceOf(ZkLockMicrometerBinding.class);
            ZkSpringLockRegistry registry = context.getBean(ZkSpringLockRegistry.class);
            registry.executeLocked("key", () -> {});
            registry.executeLocked("key", () -> {});
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            // recorded on the unlocking thread before unlock returns
            assertThat(meters.get("zklock.lock.acquisitions")
                            .tag("lock", zk.path("locks/key"))
                            .counter()
                            .count())
                    .isEqualTo(2.0);
            assertThat(meters.get("zklock.lock.hold").timer().count()).isEqualTo(2);
        });
    }

    @Test
    void meters_boundTwiceToOneRegistry_countOnce() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ClientMode.APPLICATION_CLIENT
                .runner(zk)
                .withBean(MeterRegistry.class, () -> meters)
                .run(context -> {
                    ZkLockMicrometerBinding binding = context.getBean(ZkLockMicrometerBinding.class);
                    binding.bindTo(meters);
                    binding.bindTo(meters);
                    context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> {});
                    assertThat(meters.get("zklock.lock.acquisitions").counter().count())
                            .isEqualTo(1.0);

                    binding.close();
                    context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> {});
                    assertThat(meters.get("zklock.lock.acquisitions").counter().count())
                            .isEqualTo(1.0);
                });
    }

    @Test
    void meters_withoutMicrometer_bindNothingAndTheRegistryWorks() {
        ClientMode.APPLICATION_CLIENT
                .runner(zk)
                .withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .doesNotHaveBean(ZkLockMicrometerBinding.class)
                            .doesNotHaveBean(ZkLockObservationBinding.class);
                    context.getBean(ZkSpringLockRegistry.class).executeLocked("key", () -> {});
                });
    }

    @Test
    void meters_withoutAMeterRegistryBean_bindNothing() {
        ClientMode.CONNECT_STRING
                .runner(zk)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ZkLockMicrometerBinding.class));
    }

    @Test
    void meters_withTheApplicationsBinding_backOff() {
        ClientMode.APPLICATION_CLIENT
                .runner(zk)
                .withConfiguration(BOOT_METRICS)
                .withBean("own", ZkLockMicrometerBinding.class, () -> new ZkLockMicrometerBinding(zk.newClient()))
                .run(context -> assertThat(context)
                        .hasSingleBean(ZkLockMicrometerBinding.class)
                        .hasBean("own"));
    }
}
