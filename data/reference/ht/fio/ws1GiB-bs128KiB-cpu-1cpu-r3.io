rchar: 26214902686
wchar: 13656
syscr: 200221
syscw: 5
read_bytes: 36864
write_bytes: 28672
cancelled_write_bytes: 0
