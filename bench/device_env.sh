# Sourced by the GPU scripts: unpack the Debian packages carried in .debs (bench/fetch_device_packages.sh)
# into a private prefix and point the compiler, CMake and the loader at it; sets hdf5_root, the
# CMake arguments that find its HDF5 (empty where the system has its own).
if [ -d .debs ]; then
  prefix=/opt/rbmc-deps
  mkdir -p "$prefix"
  for f in .debs/*.deb; do dpkg -x "$f" "$prefix"; done
  export CMAKE_PREFIX_PATH=$prefix/usr CPATH=$prefix/usr/include:$prefix/usr/include/hdf5/serial
  export LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu:$prefix/usr/lib/x86_64-linux-gnu/hdf5/serial
  export LD_LIBRARY_PATH=$LIBRARY_PATH
  hdf5_root=(-DHDF5_ROOT=$prefix/usr -DHDF5_C_INCLUDE_DIR=$prefix/usr/include/hdf5/serial
             -DHDF5_C_LIBRARY_hdf5=$prefix/usr/lib/x86_64-linux-gnu/hdf5/serial/libhdf5.so)
else
  hdf5_root=()
fi
