rchar: 87385418758
wchar: 18970
syscr: 666918
syscw: 5
read_bytes: 1773568
write_bytes: 20480
cancelled_write_bytes: 0
