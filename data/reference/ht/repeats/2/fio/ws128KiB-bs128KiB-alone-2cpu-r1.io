rchar: 128306883624
wchar: 18978
syscr: 979125
syscw: 5
read_bytes: 139264
write_bytes: 20480
cancelled_write_bytes: 0
