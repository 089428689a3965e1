rchar: 18503150538
wchar: 13661
syscr: 141387
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
