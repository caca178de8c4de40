{
  description = "hcasim: an open RoCEv2 HCA in Verilog, its C golden model and the co-simulation testbench";

  # Indirect reference through the flake registry; pin with `nix flake lock`.
  inputs.nixpkgs.url = "nixpkgs/nixos-24.05";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      # The same tools tools/deps.sh installs from Debian 12.
      devShells = forAllSystems (pkgs:
        let
          rv = pkgs.pkgsCross.riscv32-embedded;
        in
        {
          default = pkgs.mkShell {
            packages = with pkgs; [
              gnumake gcc pkg-config zlib
              verilator yosys gtkwave iproute2 parallel
              systemc
              rdma-core perftest   # libibverbs, librdmacm + its utilities (rping, ucmatose, ...)
              isa-l
              wireshark-cli
              (python3.withPackages (ps: [ ps.scapy ps.matplotlib ]))
              clang llvmPackages.compiler-rt
              rv.buildPackages.gcc rv.picolibc
              nix
              # the interop guest (docs/interop.md): QEMU, a static busybox, cpio
              # (the kernel and rdma_rxe come from a Debian kernel package)
              qemu cpio pkgsStatic.busybox
            ];
            # Debian's cross compiler is riscv64-unknown-elf-*; nixpkgs names
            # its rv32 bare-metal one riscv32-none-elf-*.
            shellHook = ''
              export RV_PREFIX=riscv32-none-elf-
              export PYTHON=python3
            '';
          };
        });
    };
}
