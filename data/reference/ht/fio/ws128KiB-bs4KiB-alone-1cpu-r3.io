rchar: 17321405389
wchar: 13666
syscr: 4229052
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
