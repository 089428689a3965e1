rchar: 114390141393
wchar: 5988
syscr: 872917
syscw: 3
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
