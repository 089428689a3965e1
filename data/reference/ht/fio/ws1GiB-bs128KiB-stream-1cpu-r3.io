rchar: 36260916223
wchar: 13657
syscr: 276868
syscw: 5
read_bytes: 172032
write_bytes: 28672
cancelled_write_bytes: 0
