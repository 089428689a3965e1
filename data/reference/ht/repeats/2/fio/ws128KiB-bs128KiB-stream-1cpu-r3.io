rchar: 119886949306
wchar: 13671
syscr: 914884
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
