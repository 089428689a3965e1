rchar: 41113463760
wchar: 13658
syscr: 313889
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
