package org.gstore.common.wire;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.gstore.common.protocol.Datagram;
import org.gstore.common.protocol.Delete;
import org.gstore.common.protocol.DeleteAck;
import org.gstore.common.protocol.GroupId;
import org.gstore.common.protocol.GroupRef;
import org.gstore.common.protocol.Join;
import org.gstore.common.protocol.JoinAck;
import org.gstore.common.protocol.JoinAckAck;
import org.gstore.common.protocol.Key;
import org.gstore.common.protocol.Message;
import org.gstore.common.protocol.NodeId;
import org.gstore.common.protocol.Uid;
import org.gstore.common.wire.DatagramRejectedException.Reason;
import org.gstore.common.wire.generated.KeyGroupingProtos.DatagramProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.GroupRefProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.KeyProto;
import org.gstore.common.wire.generated.KeyGroupingProtos.ProtocolMessage;
import org.gstore.common.wire.generated.KeyGroupingProtos.UidProto;

/**
 * Turns a {@link Datagram} into bytes and back. Frame: {@code 'G'}, a byte naming how it is protected, one version
 * byte, then the protobuf body ({@code DatagramProto}) protected as {@link DatagramProtection} says: in clear with
 * an HMAC-SHA256 ({@code "GS"}, {@link MacSeal}) or encrypted with AES-256-GCM ({@code "GP"}, {@link CipherSeal}),
 * under keys derived from the cluster secret ({@link ClusterKeys}). A codec sends one protection and takes both.
 * While the cluster secret is rotated, a second, accepted secret authenticates datagrams too; datagrams are always
 * sent under the cluster secret.
 *
 * <p>Each datagram carries its sender's clock; a receiver drops, as {@link Reason#STALE}, an authentic datagram
 * sent more than the freshness window before or after its own clock. That bounds how long a captured datagram can
 * be replayed (the protocol tolerates duplicates and delays, so a replay within the window costs only work).
 *
 * <p>Decoding never throws anything but {@link DatagramRejectedException}: whatever arrives on the port, the
 * caller drops it and counts the reason. Thread-safe.
 */
public final class DatagramCodec {
  /**
   * The wire version this release speaks by default: 2, which adds encrypted frames ({@link #PRIVATE_SINCE}) to
   * version 1's clear ones; the bodies are the same.
   */
  public static final int VERSION = 2;
  /**
   * The oldest wire version this release still takes and can speak: the previous release's, so that a rolling
   * upgrade never splits the cluster (docs/operations.md, "Upgrading"). A release that changes the wire format
   * raises {@link #VERSION} and leaves this one behind it.
   */
  public static final int OLDEST_VERSION = 1;
  /** The first wire version with encrypted frames: a server of version 1 cannot read them. */
  public static final int PRIVATE_SINCE = 2;

  /** The freshness window of {@link #DatagramCodec(byte[], int)}. */
  public static final long DEFAULT_FRESHNESS_MILLIS = 60_000;

  private final int sendVersion;
  private final int oldestVersion;
  private final int newestVersion;
  private final MacSeal clear;
  private final CipherSeal encrypted;
  /** The seal of the frames this codec sends. */
  private final FrameSeal sending;
  private final int maxBytes;
  private final long freshnessMillis;
  private final LongSupplier clock;

  /** A codec with the default freshness window and the system clock. */
  public DatagramCodec(byte[] secret, int maxBytes) {
    this(secret, maxBytes, DEFAULT_FRESHNESS_MILLIS, System::currentTimeMillis);
  }

  /**
   * @param secret the cluster secret every peer shares (at least 16 bytes)
   * @param maxBytes the largest datagram this node sends or accepts
   * @param freshnessMillis how far a datagram's send time may be from this node's clock; 0: no limit
   * @param clock milliseconds, as every peer's clock (HBase keeps region servers' clocks close)
   */
  public DatagramCodec(byte[] secret, int maxBytes, long freshnessMillis, LongSupplier clock) {
    this(secret, null, maxBytes, freshnessMillis, clock);
  }

  /**
   * A codec that also accepts datagrams authenticated with {@code acceptedSecret} (null: none), as while the cluster
   * secret is rotated; it sends under {@code secret} only.
   */
  public DatagramCodec(byte[] secret, byte[] acceptedSecret, int maxBytes, long freshnessMillis,
      LongSupplier clock) {
    this(secret, acceptedSecret, VERSION, maxBytes, freshnessMillis, clock);
  }

  /**
   * A codec that sends wire version {@code sendVersion} (from {@link #OLDEST_VERSION} to {@link #VERSION}: an
   * older one while servers of the previous release still run) and takes every version in that range.
   */
  public DatagramCodec(byte[] secret, byte[] acceptedSecret, int sendVersion, int maxBytes, long freshnessMillis,
      LongSupplier clock) {
    this(secret, acceptedSecret, sendVersion, maxBytes, freshnessMillis, clock, DatagramProtection.INTEGRITY);
  }

  /** A codec that sends its datagrams with {@code protection} (it takes both). */
  public DatagramCodec(byte[] secret, byte[] acceptedSecret, int sendVersion, int maxBytes, long freshnessMillis,
      LongSupplier clock, DatagramProtection protection) {
    this(secret, acceptedSecret, sendVersion, OLDEST_VERSION, VERSION, maxBytes, freshnessMillis, clock, protection);
  }

  /** A codec of a release whose versions are {@code oldestVersion} to {@code newestVersion}: for tests. */
  DatagramCodec(byte[] secret, byte[] acceptedSecret, int sendVersion, int oldestVersion, int newestVersion,
      int maxBytes, long freshnessMillis, LongSupplier clock) {
    this(secret, acceptedSecret, sendVersion, oldestVersion, newestVersion, maxBytes, freshnessMillis, clock,
        DatagramProtection.INTEGRITY);
  }

  private DatagramCodec(byte[] secret, byte[] acceptedSecret, int sendVersion, int oldestVersion, int newestVersion,
      int maxBytes, long freshnessMillis, LongSupplier clock, DatagramProtection protection) {
    if (sendVersion < oldestVersion || sendVersion > newestVersion) {
      throw new IllegalArgumentException("wire version " + sendVersion + " is not one this release speaks ("
          + oldestVersion + " to " + newestVersion + ")");
    }
    this.sendVersion = sendVersion;
    this.oldestVersion = oldestVersion;
    this.newestVersion = newestVersion;
    if (secret == null || secret.length < 16 || acceptedSecret != null && acceptedSecret.length < 16) {
      throw new IllegalArgumentException("the cluster secret must have at least 16 bytes");
    }
    if (protection == DatagramProtection.PRIVACY && sendVersion < PRIVATE_SINCE) {
      throw new IllegalArgumentException("encrypted datagrams need wire version " + PRIVATE_SINCE + " or newer;"
          + " version " + sendVersion + " has clear ones only");
    }
    this.clear = new MacSeal(secret, acceptedSecret);
    this.encrypted = new CipherSeal(secret, acceptedSecret);
    this.sending = protection == DatagramProtection.PRIVACY ? encrypted : clear;
    if (maxBytes < sending.overhead() + 16) {
      throw new IllegalArgumentException("maximum datagram size too small: " + maxBytes);
    }
    this.maxBytes = maxBytes;
    this.freshnessMillis = freshnessMillis;
    this.clock = clock;
  }

  /** Whether the frame at {@code offset} (one {@link #decode} took) came in clear, not encrypted. */
  public static boolean isClear(byte[] frame, int offset) {
    return frame[offset + 1] == 'S';
  }

  /** How the datagrams this codec sends are protected. */
  public DatagramProtection protection() {
    return sending == encrypted ? DatagramProtection.PRIVACY : DatagramProtection.INTEGRITY;
  }

  /**
   * The datagram encoded, as one frame, or as several when it exceeds the maximum size (most fit in one). Each
   * message is turned into protobuf once, whatever happens. {@link IllegalArgumentException} if a single message
   * is too large for any datagram.
   */
  public List<byte[]> encodeAll(Datagram d) {
    int overhead = sending.overhead() + header(d).build().getSerializedSize();
    List<MessageLite> items = new ArrayList<>(d.messages().size() + d.notMine().size());
    d.messages().forEach(m -> items.add(toProto(m)));
    d.notMine().forEach(k -> items.add(toProto(k)));
    List<byte[]> frames = new ArrayList<>();
    DatagramProto.Builder part = header(d);
    int size = overhead;
    for (MessageLite item : items) {
      int itemSize = item.getSerializedSize() + 8; // field tag and length prefix, generously
      if (overhead + itemSize > maxBytes) {
        throw new IllegalArgumentException("a message of " + itemSize + " bytes exceeds the maximum datagram size");
      }
      if (size + itemSize > maxBytes) {
        frames.add(frame(part.build()));
        part = header(d);
        size = overhead;
      }
      if (item instanceof ProtocolMessage m) {
        part.addMessages(m);
      } else {
        part.addNotMine((KeyProto) item);
      }
      size += itemSize;
    }
    frames.add(frame(part.build()));
    return frames;
  }

  /** The datagram as one frame; {@link IllegalArgumentException} if it exceeds the maximum size. */
  public byte[] encode(Datagram d) {
    List<byte[]> frames = encodeAll(d);
    if (frames.size() != 1) {
      throw new IllegalArgumentException("the datagram exceeds the maximum datagram size of " + maxBytes + " bytes");
    }
    return frames.get(0);
  }

  private DatagramProto.Builder header(Datagram d) {
    return DatagramProto.newBuilder().setVersion(sendVersion).setFrom(d.from().value()).setTo(d.to().value())
        .setSentAt(clock.getAsLong());
  }

  private byte[] frame(DatagramProto body) {
    return sending.seal(sendVersion, body.toByteArray());
  }

  public Datagram decode(byte[] bytes, int offset, int length) throws DatagramRejectedException {
    if (length > maxBytes) {
      throw new DatagramRejectedException(Reason.OVERSIZED, length + " bytes exceeds the maximum of " + maxBytes);
    }
    FrameSeal seal = length < FrameSeal.HEADER || bytes[offset] != 'G' ? null
        : bytes[offset + 1] == clear.tag() ? clear
        : bytes[offset + 1] == encrypted.tag() ? encrypted : null;
    if (seal == null || length < seal.overhead()) {
      throw new DatagramRejectedException(Reason.MALFORMED, "not a G-Store datagram");
    }
    byte[] body = seal.open(bytes, offset, length);
    if (body == null) {
      throw new DatagramRejectedException(Reason.UNAUTHENTICATED, seal.refusal());
    }
    int version = bytes[offset + 2] & 0xff;
    if (version < oldestVersion || version > newestVersion || seal == encrypted && version < PRIVATE_SINCE) {
      throw new DatagramRejectedException(Reason.UNKNOWN_VERSION, "protocol version " + version + "; this release"
          + " speaks " + oldestVersion + " to " + newestVersion);
    }
    try {
      DatagramProto p = DatagramProto.parseFrom(body);
      if (p.getVersion() != version) {
        throw new DatagramRejectedException(Reason.UNKNOWN_VERSION, "body version " + p.getVersion());
      }
      long age = clock.getAsLong() - p.getSentAt();
      if (freshnessMillis > 0 && (!p.hasSentAt() || Math.abs(age) > freshnessMillis)) {
        throw new DatagramRejectedException(Reason.STALE, "sent " + age + " ms ago; the window is "
            + freshnessMillis + " ms");
      }
      List<Message> messages = new ArrayList<>(p.getMessagesCount());
      for (ProtocolMessage m : p.getMessagesList()) {
        messages.add(fromProto(m));
      }
      List<Key> notMine = new ArrayList<>(p.getNotMineCount());
      for (KeyProto k : p.getNotMineList()) {
        notMine.add(fromProto(k));
      }
      return new Datagram(new NodeId(p.getFrom()), new NodeId(p.getTo()), messages, notMine);
    } catch (InvalidProtocolBufferException | IllegalArgumentException | NullPointerException e) {
      throw new DatagramRejectedException(Reason.MALFORMED, "invalid body: " + e.getMessage(), e);
    }
  }

  private static ProtocolMessage toProto(Message m) {
    ProtocolMessage.Builder b = ProtocolMessage.newBuilder()
        .setGroup(toProto(m.group()))
        .setMember(toProto(m.member()));
    return m.accept(new Message.Visitor<ProtocolMessage.Builder>() {
      @Override
      public ProtocolMessage.Builder join(Join j) {
        return b.setType(ProtocolMessage.Type.JOIN);
      }

      @Override
      public ProtocolMessage.Builder joinAck(JoinAck ja) {
        b.setType(ProtocolMessage.Type.JOIN_ACK);
        if (ja.joined()) {
          return b.setYieldId(toProto(ja.yieldId()));
        }
        b.setRefusal(ja.refusal());
        return ja.holder() == null ? b : b.setHolder(toProto(ja.holder()));
      }

      @Override
      public ProtocolMessage.Builder joinAckAck(JoinAckAck jaa) {
        return b.setType(ProtocolMessage.Type.JOIN_ACK_ACK).setYieldId(toProto(jaa.yieldId()));
      }

      @Override
      public ProtocolMessage.Builder delete(Delete d) {
        return b.setType(ProtocolMessage.Type.DELETE);
      }

      @Override
      public ProtocolMessage.Builder deleteAck(DeleteAck da) {
        return b.setType(ProtocolMessage.Type.DELETE_ACK);
      }
    }).build();
  }

  private static Message fromProto(ProtocolMessage m) {
    GroupRef group = fromProto(m.getGroup());
    Key member = fromProto(m.getMember());
    Uid yieldId = m.hasYieldId() ? fromProto(m.getYieldId()) : null;
    return switch (m.getType()) {
      case JOIN -> new Join(group, member);
      case JOIN_ACK -> new JoinAck(group, member, yieldId, m.hasRefusal() ? m.getRefusal() : null,
          m.hasHolder() ? fromProto(m.getHolder()) : null);
      case JOIN_ACK_ACK -> new JoinAckAck(group, member, Objects.requireNonNull(yieldId, "yield id"));
      case DELETE -> new Delete(group, member);
      case DELETE_ACK -> new DeleteAck(group, member);
    };
  }

  public static KeyProto toProto(Key k) {
    return KeyProto.newBuilder().setTable(k.table()).setRow(ByteString.copyFrom(k.row())).build();
  }

  public static Key fromProto(KeyProto k) {
    return Key.of(k.getTable(), k.getRow().toByteArray());
  }

  static UidProto toProto(Uid u) {
    return UidProto.newBuilder().setIssuer(u.issuer().value()).setSeq(u.seq()).build();
  }

  static Uid fromProto(UidProto u) {
    return new Uid(new NodeId(u.getIssuer()), u.getSeq());
  }

  public static GroupRefProto toProto(GroupRef g) {
    return GroupRefProto.newBuilder()
        .setName(g.id().name())
        .setLeader(toProto(g.leader()))
        .setEpoch(toProto(g.epoch()))
        .build();
  }

  public static GroupRef fromProto(GroupRefProto g) {
    return new GroupRef(new GroupId(g.getName(), fromProto(g.getLeader())), fromProto(g.getEpoch()));
  }
}
