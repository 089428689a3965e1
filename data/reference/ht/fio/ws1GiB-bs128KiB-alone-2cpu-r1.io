rchar: 94980647934
wchar: 18970
syscr: 724864
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
