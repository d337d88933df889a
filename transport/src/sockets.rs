//! Multicast socket setup (socket2), following the recipe measured in `docs/LAB-NOTES.md`,
//! "Multicast socket recipe": the interface is always explicit (`IP_MULTICAST_IF`, joins on the
//! interface address), receivers set `IP_MULTICAST_ALL = 0` so a socket only hears the groups it
//! joined, and SO_REUSEPORT lets several processes on one host share the ports.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::time::Duration;

use socket2::{Domain, Protocol, SockAddr, Socket, Type};

use crate::error::TransportError;

use TransportError as E;

/// A socket that receives the multicast groups it is told to join on `port`.
pub fn multicast_receiver(
    port: u16,
    read_timeout: Option<Duration>,
) -> Result<UdpSocket, TransportError> {
    let s = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
        .map_err(E::socket("create multicast receive socket"))?;
    s.set_reuse_address(true)
        .map_err(E::socket("SO_REUSEADDR"))?;
    s.set_reuse_port(true).map_err(E::socket("SO_REUSEPORT"))?;
    s.set_multicast_all_v4(false)
        .map_err(E::socket("IP_MULTICAST_ALL"))?;
    // Each datagram comes with the address it was sent to: the group it came in on, which the
    // per-group counters of DDM need (`hlamesh_ddm_datagrams_received_by_group_total`).
    nix::sys::socket::setsockopt(&s, nix::sys::socket::sockopt::Ipv4PacketInfo, &true)
        .map_err(|e| E::socket("IP_PKTINFO")(std::io::Error::from(e)))?;
    // Large bursts (fragmented 64 KiB messages) must not overflow the default buffer.
    let _ = s.set_recv_buffer_size(8 << 20);
    s.bind(&SockAddr::from(SocketAddrV4::new(
        Ipv4Addr::UNSPECIFIED,
        port,
    )))
    .map_err(E::socket(format!("bind multicast port {port}")))?;
    s.set_read_timeout(read_timeout)
        .map_err(E::socket("SO_RCVTIMEO"))?;
    Ok(s.into())
}

/// Bytes of ancillary data [`recv_with_destination`] needs (one `IP_PKTINFO` message).
pub fn destination_space() -> Vec<u8> {
    nix::cmsg_space!(nix::libc::in_pktinfo)
}

/// Receives one datagram into `buf` on a socket made by [`multicast_receiver`]: its length and
/// the address it was sent to (the multicast group it came in on; `None` if the kernel did not
/// say). `ancillary` is scratch space from [`destination_space`].
pub fn recv_with_destination(
    sock: &UdpSocket,
    buf: &mut [u8],
    ancillary: &mut [u8],
) -> std::io::Result<(usize, Option<Ipv4Addr>)> {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, SockaddrIn, recvmsg};
    use std::os::fd::AsRawFd;
    let mut iov = [std::io::IoSliceMut::new(buf)];
    let msg = recvmsg::<SockaddrIn>(
        sock.as_raw_fd(),
        &mut iov,
        Some(ancillary),
        MsgFlags::empty(),
    )
    .map_err(std::io::Error::from)?;
    let dst = msg.cmsgs().ok().and_then(|mut c| {
        c.find_map(|m| match m {
            ControlMessageOwned::Ipv4PacketInfo(info) => {
                Some(Ipv4Addr::from(u32::from_be(info.ipi_addr.s_addr)))
            }
            _ => None,
        })
    });
    Ok((msg.bytes, dst))
}

/// Makes the kernel drop, before they reach `recv`, the datagrams this node's own `sender` socket
/// sent to the groups `recv` joined. Multicast loopback must stay on (other processes on this
/// host are members too), so without this every node read each datagram it sent back once, with
/// a system call and a wake-up of its data thread, only to discard it. A classic BPF program
/// compares the UDP source port (offset 0 of what a UDP socket's filter sees) and the IPv4
/// source address (in the network header, `SKF_NET_OFF`). Where it cannot be attached the
/// receiver still discards its own datagrams by their header (counted as `own`).
pub fn drop_own_datagrams(recv: &UdpSocket, sender: &UdpSocket) -> std::io::Result<()> {
    use socket2::SockFilter;
    let SocketAddr::V4(own) = sender.local_addr()? else {
        return Err(std::io::Error::other("the data sender is not IPv4"));
    };
    // Classic BPF opcodes (linux/filter.h).
    const LD_H_ABS: u16 = 0x28;
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    // SKF_NET_OFF (-0x100000) + 12, the IPv4 source address, as the u32 the kernel reads.
    const NET_SRC_ADDR: u32 = 0xFFF0_000C;
    let program = [
        SockFilter::new(LD_H_ABS, 0, 0, 0),
        SockFilter::new(JEQ_K, 0, 3, u32::from(own.port())),
        SockFilter::new(LD_W_ABS, 0, 0, NET_SRC_ADDR),
        SockFilter::new(JEQ_K, 0, 1, u32::from(*own.ip())),
        SockFilter::new(RET_K, 0, 0, 0),
        SockFilter::new(RET_K, 0, 0, u32::MAX),
    ];
    socket2::SockRef::from(recv).attach_filter(&program)
}

/// Joins `group` on `interface`.
pub fn join(sock: &UdpSocket, group: Ipv4Addr, interface: Ipv4Addr) -> Result<(), TransportError> {
    sock.join_multicast_v4(&group, &interface)
        .map_err(E::socket(format!("join {group} on {interface}")))
}

/// Leaves `group` on `interface`.
pub fn leave(sock: &UdpSocket, group: Ipv4Addr, interface: Ipv4Addr) -> Result<(), TransportError> {
    sock.leave_multicast_v4(&group, &interface)
        .map_err(E::socket(format!("leave {group} on {interface}")))
}

/// A socket that sends multicast out of `interface` with the given TTL (loop on, so federates on
/// the same host hear each other on a real NIC).
pub fn multicast_sender(interface: Ipv4Addr, ttl: u32) -> Result<UdpSocket, TransportError> {
    let s = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
        .map_err(E::socket("create multicast send socket"))?;
    s.set_multicast_if_v4(&interface)
        .map_err(E::socket("IP_MULTICAST_IF"))?;
    s.set_multicast_ttl_v4(ttl)
        .map_err(E::socket("IP_MULTICAST_TTL"))?;
    s.set_multicast_loop_v4(true)
        .map_err(E::socket("IP_MULTICAST_LOOP"))?;
    let _ = s.set_send_buffer_size(4 << 20);
    s.bind(&SockAddr::from(SocketAddrV4::new(interface, 0)))
        .map_err(E::socket(format!("bind send socket on {interface}")))?;
    Ok(s.into())
}
