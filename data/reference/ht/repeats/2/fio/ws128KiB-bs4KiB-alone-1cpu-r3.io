rchar: 24044853711
wchar: 5986
syscr: 5870499
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
