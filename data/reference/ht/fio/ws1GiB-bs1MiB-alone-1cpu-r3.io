rchar: 30330170348
wchar: 13654
syscr: 29146
syscw: 5
read_bytes: 172032
write_bytes: 8192
cancelled_write_bytes: 0
