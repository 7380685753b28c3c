package dev.zklock.spring;

import dev.zklock.recipes.leader.ZkLeaderSelector;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Spring Boot's auto-configuration of zklock's leader election: a {@link ZkLeaderInitiator} for the application's
 * {@link Candidate} bean, on the application's {@code CuratorFramework} or the one {@link ZkLockAutoConfiguration}
 * starts (so it runs after that one), with {@code zklock.leader.*} ({@link ZkLeaderProperties}).
 *
 * <p><b>One candidate.</b> The initiator is made when there is exactly one {@code Candidate} bean, or one marked
 * primary among several (Boot's single-candidate rule), and none otherwise
 * ({@code ZkLeaderAutoConfigurationTest.initiator_withTwoCandidates_isNotMade}): an application with several roles
 * defines an initiator per candidate itself, which also lets each have its own root and phase. It backs off when the
 * application defines any leader initiator of its own: a {@code ZkLeaderInitiator}, Spring Integration's
 * {@code LockRegistryLeaderInitiator} or its ZooKeeper {@code LeaderInitiator}
 * ({@code ZkLeaderAutoConfigurationTest.initiator_whenTheApplicationDefinesOne_backsOff}). Events go to a
 * {@link LeaderEventPublisher} bean if there is exactly one, else to the application's event publisher.
 *
 * <p>Making the bean costs no ZooKeeper call; the context starts it (unless {@code zklock.leader.auto-startup} is
 * false) and stops it before it closes the client
 * ({@code ZkLeaderAutoConfigurationTest.initiator_withACandidateBean_isMadeStartedAndLeads}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = ZkLockAutoConfiguration.class)
@ConditionalOnClass({CuratorFramework.class, Candidate.class, ZkLeaderSelector.class})
@ConditionalOnSingleCandidate(CuratorFramework.class)
@EnableConfigurationProperties(ZkLeaderProperties.class)
public final class ZkLeaderAutoConfiguration {
    /** Made by Spring. */
    public ZkLeaderAutoConfiguration() {}

    /**
     * The initiator of the application's candidate, with the root, auto-startup and phase of
     * {@code zklock.leader.*}.
     *
     * @param client the application's client, or the one zklock started
     * @param candidate the candidate
     * @param properties the {@code zklock.leader.*} properties
     * @param publisher a leader event publisher bean, if any
     * @return the initiator, not yet started
     * @throws IllegalArgumentException if the root and the candidate's role make no valid ZooKeeper path
     */
    @Bean
    @ConditionalOnSingleCandidate(Candidate.class)
    @ConditionalOnMissingBean(
            value = ZkLeaderInitiator.class,
            type = {
                "org.springframework.integration.support.leader.LockRegistryLeaderInitiator",
                "org.springframework.integration.zookeeper.leader.LeaderInitiator"
            })
    public ZkLeaderInitiator zkLeaderInitiator(
            CuratorFramework client,
            Candidate candidate,
            ZkLeaderProperties properties,
            ObjectProvider<LeaderEventPublisher> publisher) {
        ZkLeaderInitiator initiator = new ZkLeaderInitiator(client, candidate, properties.getRoot());
        initiator.setAutoStartup(properties.isAutoStartup());
        initiator.setPhase(properties.getPhase());
        publisher.ifUnique(initiator::setLeaderEventPublisher);
        return initiator;
    }
}
